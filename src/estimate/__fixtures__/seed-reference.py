"""Runs the record's reference estimator on a batch of texts for the seed parity test.

Usage: python3 seed-reference.py SPEC_DIR INPUT_JSON
  SPEC_DIR   folder holding seed_floor.py
  INPUT_JSON UTF-8 JSON {"texts": [...], "margins": [...]}

Prints one JSON object (ASCII only, so lone surrogates survive) with, per text: the irreducible and
margin numbers of `estimate_floor` at each margin, the distinct spans in `seen` order as
[pattern index, text, start, end] (code point offsets), and each cue present as [cue, start, end]
mapped back to offsets in the original text.
"""

import json
import sys

sys.path.insert(0, sys.argv[1])
import seed_floor  # noqa: E402


def distinct_spans(text):
    seen = set()
    spans = []
    for index, pattern in enumerate(seed_floor._IRREDUCIBLE_PATTERNS):
        for match in pattern.finditer(text):
            span = match.group(0)
            if span not in seen:
                seen.add(span)
                spans.append([index, span, match.start(), match.end()])
    return spans


def cues(text):
    lowered = text.lower()
    # Per-character lowering differs from str.lower() only for final sigma, which keeps the length,
    # so it gives the origin of every character of `lowered`.
    origin = []
    for index, char in enumerate(text):
        origin.extend([index] * len(char.lower()))
    if len(origin) != len(lowered):
        raise SystemExit('per-character lowering changed the length; the origin map is wrong')
    found = []
    for cue in seed_floor._CONSTRAINT_CUES:
        at = lowered.find(cue)
        if at >= 0:
            found.append([cue, origin[at], origin[at + len(cue) - 1] + 1])
    return found


def main():
    with open(sys.argv[2], 'rb') as handle:
        batch = json.loads(handle.read().decode('utf-8'))
    results = []
    for text in batch['texts']:
        estimates = []
        for margin in batch['margins']:
            estimate = seed_floor.estimate_floor(text, margin)
            estimates.append([estimate.irreducible_tokens, estimate.margin_tokens])
        results.append({'estimates': estimates, 'spans': distinct_spans(text), 'cues': cues(text)})
    sys.stdout.write(json.dumps({'results': results}, ensure_ascii=True))


main()

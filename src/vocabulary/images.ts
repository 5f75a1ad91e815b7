/**
 * Container image references, read by more than one layer: one definition, used by the estimator (an image with its
 * tag is a version item: `estimate/extractors/words.ts`) and by the planner (a changed tag is a changed decision, keyed
 * by the image's name: `plan/superseded.ts`).
 *
 * A reference is lower-case name segments joined by `/` (the first may be a registry with a port), `:`, and a tag of
 * letters, digits, `_`, `.` and `-` that holds a digit: `pytorch/pytorch:2.4.0-cuda12.1-cudnn9-devel`,
 * `ghcr.io/org/app:v1.2.3`, `localhost:5000/team/app:1.0`. A tag that is a bare number (`src/app.ts:12` is a line) is
 * not one; without a `/`, only a version's variant is (`python:3.11-slim`, `node:20-alpine`), where `lr:0.001` and
 * `error:123e4567-…` are a setting and a status. Read in one pass, no backtracking.
 */

/** Longest tag (Docker's limit). */
const MAX_TAG = 128

/** The reference starting at `start` of `text` (not past `to`): where its `:` and its end are, or undefined. */
export function imageReferenceAt(text: string, start: number, to: number): { readonly colon: number; readonly end: number } | undefined {
  let at = start
  let slashes = 0
  for (;;) {
    if (at >= to || !isSegmentStart(text.charCodeAt(at))) return undefined
    at++
    while (at < to && isSegmentUnit(text.charCodeAt(at))) at++
    const code = text.charCodeAt(at)
    if (at < to && code === 47) {
      slashes++
      at++
      continue
    }
    if (at >= to || code !== 58) return undefined
    // A registry's port (`localhost:5000/`) is followed by a `/`; a tag is not.
    let digits = at + 1
    while (digits < to && digits - at <= 5 && isDigit(text.charCodeAt(digits))) digits++
    if (slashes === 0 && digits > at + 1 && digits < to && text.charCodeAt(digits) === 47) {
      slashes++
      at = digits + 1
      continue
    }
    break
  }
  const colon = at
  let end = colon + 1
  if (end >= to || !isTagStart(text.charCodeAt(end))) return undefined
  while (end < to && end - colon <= MAX_TAG && isTagUnit(text.charCodeAt(end))) end++
  // What stops the tag ends the reference (a tag too long, or `/`, `:`, `@` after it, is none).
  const after = text.charCodeAt(end)
  if (end < to && (isTagUnit(after) || after === 47 || after === 58 || after === 64)) return undefined
  // A sentence's full stop or a dash after the tag is not part of it.
  while (end > colon + 1 && (text.charCodeAt(end - 1) === 46 || text.charCodeAt(end - 1) === 45)) end--
  let digit = false
  let allDigits = true
  for (let index = colon + 1; index < end; index++) {
    const isDigitUnit = isDigit(text.charCodeAt(index))
    digit ||= isDigitUnit
    allDigits &&= isDigitUnit
  }
  if (!digit || allDigits) return undefined
  return slashes > 0 || isVariantTag(text, colon + 1, end) ? { colon, end } : undefined
}

/** Whether the whole of `word` is an image reference. */
export function isImageReference(word: string): boolean {
  return imageReferenceAt(word, 0, word.length)?.end === word.length
}

/** `3.11-slim`, `20-alpine`: digits and dots, `-`, a lower-case letter, then letters, digits, `.` and `-`. */
function isVariantTag(text: string, start: number, end: number): boolean {
  let at = start
  while (at < end && (isDigit(text.charCodeAt(at)) || text.charCodeAt(at) === 46)) at++
  if (at === start || !isDigit(text.charCodeAt(start)) || text.charCodeAt(at) !== 45 || !isLower(text.charCodeAt(at + 1))) return false
  for (at += 2; at < end; at++) {
    const code = text.charCodeAt(at)
    if (!isLower(code) && !isDigit(code) && code !== 46 && code !== 45) return false
  }
  return true
}

const isDigit = (code: number): boolean => code >= 48 && code <= 57
const isLower = (code: number): boolean => code >= 97 && code <= 122
const isSegmentStart = (code: number): boolean => isLower(code) || isDigit(code)
const isSegmentUnit = (code: number): boolean => isSegmentStart(code) || code === 46 || code === 95 || code === 45
const isTagStart = (code: number): boolean => isSegmentStart(code) || (code >= 65 && code <= 90) || code === 95
const isTagUnit = (code: number): boolean => isTagStart(code) || code === 46 || code === 45

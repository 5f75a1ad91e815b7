/**
 * Gold extractor: the state an agent resuming after a compaction needs, found with its own simple patterns.
 *
 * It is the measuring stick `full` (src/estimate/) is judged against, so it shares no code with it: nothing here
 * imports estimate/, plan/, summarize/, verify/ or compact/ (`independence.test.ts` checks). It may be slow; every
 * pattern reads one line (or one token) at a time and is linear in it.
 *
 * What a message yields, part by part (reasoning parts yield nothing):
 * - **text** of a user, assistant or system message (source = role), a tool message's text and a **tool result**
 *   (`tool-result`), an earlier compactor's **summary** (`summary`): the line and word finders below.
 * - **tool call** (`tool-call`), read from the decoded arguments: a `command`/`cmd` string whole (heredoc bodies
 *   included; an argv array `["bash","-lc",X]` is X; not a bare word such as `submit`; an editor action such as
 *   swe-agent's `edit 1:1\n…` only has its body scanned); `file_path`/`path`/… whole as a path, `url` as a URL,
 *   `pattern` as a command, `*_id`/`*Id`/`file_key`/`name`/`repo`/`model`/… as an id; every other string argument
 *   (Write content, Edit strings, prompts) is scanned for words (no errors, no constraints). Numbers and booleans are
 *   not items.
 *
 * Finders:
 * - **error** (not from tool calls): a whole line starting with an exception name (`XError: msg`, `E   XError` in
 *   pytest), `Error:`/`error[E…]:`/`fatal:`/`panic:`, `FAILED `/`ERROR `/`npm ERR!`; in output, pasted logs and system
 *   text also `path:line: error:`/lint codes, `Web fetch error: …` (a short prefix ending in error/failed), a line with
 *   an error phrase after a colon (`git@github.com: Permission denied (publickey).`), an HTTP 4xx/5xx line with an error
 *   word, the value of a JSON `"error"`/`"detail"` (and `"message"` in a failing result or with an error word; the
 *   whole value, never `status": "error`), `Exit code N` with the line after it. The detail line after a first line is
 *   kept with it (indented, `hint:`/`note:`/`-->`, or after a first line ending in `:`). A flagged result with none of
 *   these yields its first line (`<tool_use_error>` tags dropped). Grep matches (`path:12:`), numbered file views and
 *   diff lines are never errors in themselves. In the assistant's prose and summaries only line-start exceptions,
 *   `Error:`/`fatal:` lines and such errors quoted in inline code count.
 * - **constraint**: a user or system sentence (outside code fences, `<system-reminder>`/`<task-notification>` and
 *   command banners, code-like lines, headings, lead-ins ending in `:`, a tool's argument docs) with a cue word (must,
 *   never, always, only, don't, at most, exactly, required, make sure, ensure, should, avoid, cannot… and a few Russian
 *   ones), whole, a leading bullet left out; `e.g.`/`i.e.`/`etc.` do not end a sentence; questions only with a strong
 *   cue. Not from the assistant, tool output or summaries (which restate; the user's words are the constraint).
 * - **command** in prose: lines of a shell-fenced block (a `\` continuation kept whole), `$ cmd` lines, inline code
 *   starting with a known program and carrying an argument; not a template (`python <script>.py`) or an installer
 *   without its package (`uv pip install`).
 * - **url**: `scheme://…` and `user@host:path`, trailing punctuation and unbalanced brackets dropped; not W3C
 *   namespace/DTD identifiers in markup.
 * - **path**: absolute (two segments, or one known root such as `/tmp`), `~/`, `./`, `../`, or relative with a slash
 *   and an extension on the last segment or a known/dot directory (`src/eval`, `.gemini/skills`). Not prose slashes
 *   (`and/or`, `daemon/service`, `19k/200k`, `text/html`, `plan.md/CLAUDE.md`).
 * - **version**: `pkg==1.2.3`, `pkg>=0.40.0,<1` (a bare comparison such as `>200` is not), `pkg@1.2`, `"pkg": "^1.2"`,
 *   `pkg = "^1.2"`, a known program and a dotted number (`node 20.11`, `OpenWrt 23.05-SNAPSHOT`), `image:tag`.
 * - **setting** (not from tool results, whose numbers the program printed and prints again): `--flag=v`, `--flag v`
 *   (v a number, path, quoted string, or a word after a flag that takes one), `key=n`, `ENV_NAME=v`, `name: int = n`,
 *   `key: n` (a plain lower-case word only as the line's own key, so `MPS allocated: 6.80 GiB` is not one; never
 *   `file.py:77`), a number with a unit (`275 Hz`, `512 MB`), hex colours (`#54BD95`). Not code's counters and
 *   arguments (`count = 0`, `dim=1`).
 * - **id**: UUIDs, git hashes (7–64 hex with a digit and a letter), vendor ids (`pod-…`, `sevt_…`; not the harness's
 *   `toolu_…`/`call_…`), random-looking tokens (12+ alternating letters and digits: pod ids, file keys), arXiv ids
 *   (`arXiv:2403.12345`; bare only on a line naming arXiv), DOIs, IPv4 with or without a port (not a bare 127.0.0.1),
 *   `host.tld:port`, `153:184`-style ids after node/page/frame/layer/component. UUIDs anywhere; other ids not inside a
 *   path or URL (which is the item).
 *
 * Tool output: gold reports its errors, paths, URLs, versions and ids with source `tool-result`; whether an item the
 * agent can fetch again by re-running the command (the hashes `git log` lists) must survive is the harness's call.
 * There is no length cap: a 100 kB path or line is still one item.
 */
import type { Message } from '../../spec/transcript.js'
import { scanText } from './_text.js'
import { toolCallItems } from './_tool-call.js'

/** What kind of state a gold item is. */
export type GoldKind = 'path' | 'error' | 'version' | 'setting' | 'command' | 'url' | 'id' | 'constraint'

/** Where in a message an item was found. */
export type GoldSource = 'system' | 'user' | 'assistant' | 'tool-call' | 'tool-result' | 'summary'

/** One gold item: its kind, its exact text, the transcript index of its message and the kind of part it came from. */
export interface GoldItem {
  readonly kind: GoldKind
  readonly text: string
  readonly message: number
  readonly source: GoldSource
}

/** Gold items of messages[i] (transcript index offset + i), distinct texts per message, in order of appearance. */
export function goldItems(messages: readonly Message[], offset = 0): GoldItem[] {
  const items: GoldItem[] = []
  messages.forEach((message, i) => {
    const seen = new Set<string>()
    const add = (found: ReadonlyArray<{ kind: GoldKind; text: string }>, source: GoldSource) => {
      for (const item of found) {
        if (seen.has(item.text)) continue
        seen.add(item.text)
        items.push({ kind: item.kind, text: item.text, message: offset + i, source })
      }
    }
    for (const part of message.parts) {
      switch (part.type) {
        case 'reasoning':
          break
        case 'text': {
          const source = textSource(message.role)
          add(scanText(part.text, source), source)
          break
        }
        case 'summary':
          add(scanText(part.text, 'summary'), 'summary')
          break
        case 'tool-result':
          add(scanText(part.content, 'tool-result', { flagged: part.isError }), 'tool-result')
          break
        case 'tool-call':
          add(toolCallItems(part.name, part.arguments), 'tool-call')
          break
      }
    }
  })
  return items
}

/** Gold items of one text as a given source (for tests and the labeller), distinct texts in order of appearance. */
export function goldItemsOfText(text: string, source: GoldSource): Array<{ kind: GoldKind; text: string }> {
  const seen = new Set<string>()
  const items: Array<{ kind: GoldKind; text: string }> = []
  for (const item of scanText(text, source)) {
    if (seen.has(item.text)) continue
    seen.add(item.text)
    items.push({ kind: item.kind, text: item.text })
  }
  return items
}

const textSource = (role: Message['role']): GoldSource => (role === 'tool' ? 'tool-result' : role)

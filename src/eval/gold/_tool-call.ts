/**
 * Items of one tool call, read from its decoded arguments (not from the JSON rendering, whose escapes no one types).
 */
import type { GoldKind } from './index.js'
import { scanText, type TextItem } from './_text.js'

/** Argument names whose string value is a shell command, taken whole (heredoc bodies included). */
const COMMAND_KEYS: ReadonlySet<string> = new Set(['command', 'cmd', 'commands'])
/** Tools whose `command` is an editor action: its first line (`edit 1:1`) places the text the rest writes. */
const EDITOR_TOOLS: ReadonlySet<string> = new Set(['edit', 'create', 'insert', 'append', 'str_replace_editor'])
const PATH_KEYS: ReadonlySet<string> = new Set([
  'file_path', 'filepath', 'path', 'filename', 'file_name', 'file', 'dir', 'dir_path', 'directory', 'output_dir', 'project_root',
  'notebook_path', 'absolute_path', 'cwd', 'workdir', 'working_directory', 'target_file', 'volumeMountPath',
])
const URL_KEYS: ReadonlySet<string> = new Set(['url', 'uri', 'href', 'endpoint'])
const PATTERN_KEYS: ReadonlySet<string> = new Set(['pattern', 'regex', 'glob'])
const NAME_KEYS: ReadonlySet<string> = new Set(['name', 'repo', 'repository', 'organization', 'image', 'imageName', 'model', 'branch'])
const ID_KEY = /^(?:id|ids|file_key)$|_ids?$|[a-z]Ids?$/

/** A tool-call item: its kind, text, and its rank (argument order, then offset) for ordering. */
export interface CallItem {
  readonly kind: GoldKind
  readonly text: string
}

/** Whole-argument kind for a string argument, or undefined when the argument is narrative or a payload to scan. */
function wholeKind(key: string, value: string): GoldKind | undefined {
  if (value.includes('\n') || value.length > 4096) return undefined
  if (PATH_KEYS.has(key)) return 'path'
  if (URL_KEYS.has(key)) return 'url'
  if (PATTERN_KEYS.has(key)) return 'command'
  if (ID_KEY.test(key) || NAME_KEYS.has(key)) return 'id'
  return undefined
}

/** `["bash", "-lc", "ls -la"]` is the command `ls -la`; another array of words is joined with spaces. */
function commandOfArray(value: readonly unknown[]): string | undefined {
  if (!value.every((element) => typeof element === 'string')) return undefined
  const words = value as readonly string[]
  if (words.length === 3 && /^(?:ba|z|)sh$/.test(words[0] as string) && /^-l?c$/.test(words[1] as string)) return words[2]
  return words.join(' ')
}

/** Items of one tool call: whole commands and identifying arguments, then what its other string arguments hold. */
export function toolCallItems(name: string, args: unknown): CallItem[] {
  const items: CallItem[] = []
  const push = (found: readonly TextItem[]) => {
    for (const item of found) items.push({ kind: item.kind, text: item.text })
  }
  const command = (text: string) => {
    const trimmed = text.trim()
    // A bare word (`submit`, `ls`) names an action and carries nothing to keep.
    if (trimmed !== '' && /\s/.test(trimmed)) items.push({ kind: 'command', text: trimmed })
  }
  const visit = (value: unknown, key: string) => {
    if (typeof value === 'string') {
      if (value.trim() === '') return
      if (COMMAND_KEYS.has(key)) {
        const body = value.trim()
        const newline = body.indexOf('\n')
        if (EDITOR_TOOLS.has(name.toLowerCase()) && newline >= 0) {
          // `edit 1:1` says where the body went, which the file now shows: only the body is read.
          push(scanText(body.slice(newline + 1), 'tool-call'))
          return
        }
        command(body)
        push(scanText(body, 'tool-call'))
        return
      }
      const kind = wholeKind(key, value)
      if (kind !== undefined) items.push({ kind, text: value.trim() })
      push(scanText(value, 'tool-call'))
    } else if (Array.isArray(value)) {
      if (COMMAND_KEYS.has(key)) {
        const text = commandOfArray(value)
        if (text !== undefined) {
          command(text)
          push(scanText(text, 'tool-call'))
          return
        }
      }
      for (const element of value) visit(element, key)
    } else if (value !== null && typeof value === 'object') {
      for (const [childKey, child] of Object.entries(value)) visit(child, childKey)
    }
  }
  visit(args, '')
  return items
}

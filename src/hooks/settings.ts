import { InvalidInputError } from '../errors.js'
import type { HookCommandEntry, HostName } from './types.js'

/** A settings object after an install or uninstall, and what changed in it. */
export interface SettingsChange {
  /** The new settings (a copy; the input is never modified). */
  readonly settings: Record<string, unknown>
  /** Events whose floorguard hook was added, updated or removed. */
  readonly added: readonly string[]
  readonly updated: readonly string[]
  readonly removed: readonly string[]
  readonly changed: boolean
}

type Json = Record<string, unknown>

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

/**
 * Whether a hook object is floorguard's for `host`: its command runs `floorguard … hook HOST EVENT` (a `floorguard`
 * binary, `floorguard.js`, or the plugin's launcher), or its `name` starts with `floorguard-` (Gemini CLI).
 */
export function isFloorguardHook(hook: unknown, host: HostName): boolean {
  if (!isObject(hook)) return false
  if (typeof hook['name'] === 'string' && hook['name'].startsWith('floorguard-') && host === 'gemini') return true
  const command = hook['command']
  if (typeof command !== 'string' || !command.includes('floorguard')) return false
  const at = command.indexOf(` hook ${host} `)
  return at !== -1
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** The settings' `hooks` object (created when absent), or a one-line error naming the file and the field. */
function hooksOf(settings: Json, file: string, create: boolean): Json | undefined {
  const hooks = settings['hooks']
  if (hooks === undefined) {
    if (!create) return undefined
    const created: Json = {}
    settings['hooks'] = created
    return created
  }
  if (!isObject(hooks)) throw new InvalidInputError(`expected an object of hook events, got ${kindOf(hooks)}`, { file, field: 'hooks' })
  return hooks
}

function groupsOf(hooks: Json, event: string, file: string): unknown[] | undefined {
  const groups = hooks[event]
  if (groups === undefined) return undefined
  if (!Array.isArray(groups)) throw new InvalidInputError(`expected an array of hook groups, got ${kindOf(groups)}`, { file, field: `hooks.${event}` })
  return groups
}

function rootOf(settings: unknown, file: string): Json {
  if (settings === undefined) return {}
  if (!isObject(settings)) throw new InvalidInputError(`expected a JSON object at the top level, got ${kindOf(settings)}`, { file })
  return structuredClone(settings)
}

/**
 * Adds floorguard's hook entries to a host's settings, leaving every other hook where it is: an event that already
 * holds floorguard's hook gets it updated in place (further copies removed), other events get a new group at the end.
 * Installing twice changes nothing the second time. Throws an InvalidInputError (one line: file, field, expectation)
 * when `hooks` or an event is not the shape the host documents.
 */
export function addHookEntries(settings: unknown, host: HostName, entries: readonly HookCommandEntry[], file: string): SettingsChange {
  const root = rootOf(settings, file)
  const hooks = hooksOf(root, file, true)!
  const added: string[] = []
  const updated: string[] = []
  for (const entry of entries) {
    let groups = groupsOf(hooks, entry.event, file)
    if (!groups) hooks[entry.event] = groups = []
    const desiredGroup: Json = { ...(entry.matcher === undefined ? {} : { matcher: entry.matcher }), hooks: [{ ...entry.hook }] }
    let found = false
    let changed = false
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]
      if (!isObject(group) || !Array.isArray(group['hooks'])) continue
      const list = group['hooks'] as unknown[]
      for (let h = 0; h < list.length; h++) {
        if (!isFloorguardHook(list[h], host)) continue
        if (found) {
          list.splice(h--, 1)
          changed = true
          continue
        }
        found = true
        if (!sameJson(list[h], entry.hook)) {
          list[h] = { ...entry.hook }
          changed = true
        }
        // Our own group (nothing else in it) also gets our matcher.
        if (list.length === 1 && (group['matcher'] ?? undefined) !== entry.matcher) {
          if (entry.matcher === undefined) delete group['matcher']
          else group['matcher'] = entry.matcher
          changed = true
        }
      }
      if (list.length === 0) {
        groups.splice(g--, 1)
        changed = true
      }
    }
    if (!found) {
      groups.push(desiredGroup)
      added.push(entry.event)
    } else if (changed) updated.push(entry.event)
  }
  return { settings: root, added, updated, removed: [], changed: added.length > 0 || updated.length > 0 }
}

/**
 * Removes floorguard's hooks for `host` from a host's settings: its hook objects, the groups they leave empty, the
 * events and the `hooks` object they leave empty. Everything else stays as it was.
 */
export function removeHookEntries(settings: unknown, host: HostName, file: string): SettingsChange {
  const root = rootOf(settings, file)
  const hooks = hooksOf(root, file, false)
  const removed: string[] = []
  if (!hooks) return { settings: root, added: [], updated: [], removed, changed: false }
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event]
    if (!Array.isArray(groups)) continue
    let removedHere = false
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]
      if (!isObject(group) || !Array.isArray(group['hooks'])) continue
      const list = group['hooks'] as unknown[]
      const kept = list.filter((hook) => !isFloorguardHook(hook, host))
      if (kept.length === list.length) continue
      removedHere = true
      if (kept.length === 0) groups.splice(g--, 1)
      else group['hooks'] = kept
    }
    if (!removedHere) continue
    removed.push(event)
    if (groups.length === 0) delete hooks[event]
  }
  if (removed.length > 0 && Object.keys(hooks).length === 0) delete root['hooks']
  return { settings: root, added: [], updated: [], removed, changed: removed.length > 0 }
}

/** The indentation of a JSON text (its first indented line's leading tabs or spaces), or two spaces. */
export function detectIndent(text: string | undefined): string {
  if (!text) return '  '
  for (const line of text.split('\n')) {
    const match = /^([ \t]+)\S/.exec(line)
    if (match) return match[1]!
  }
  return '  '
}

/** Serializes settings in the original file's indentation and line endings, with a final line break. */
export function formatSettings(settings: unknown, original: string | undefined): string {
  const crlf = original?.includes('\r\n') ?? false
  const text = `${JSON.stringify(settings, null, detectIndent(original))}\n`
  return crlf ? text.replace(/\n/g, '\r\n') : text
}

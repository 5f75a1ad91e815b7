import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { claudeCodeHost } from './hosts/claude-code.js'
import { geminiHost } from './hosts/gemini.js'
import { addHookEntries, detectIndent, formatSettings, isFloorguardHook, removeHookEntries } from './settings.js'

const COMMAND = 'node /opt/floorguard/hooks/floorguard-hook.mjs hook claude-code'
const entries = claudeCodeHost.entries(COMMAND)

const theirs = {
  model: 'opus',
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh', timeout: 5 }] }],
    PreCompact: [{ hooks: [{ type: 'command', command: 'backup-transcript.sh' }] }],
    SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'load-context.sh' }] }],
  },
}

describe('addHookEntries', () => {
  it('adds one group per event after the hooks already there, and leaves theirs untouched', () => {
    const change = addHookEntries(theirs, 'claude-code', entries, 'settings.json')
    expect(change.added).toEqual(['PreCompact', 'SessionStart', 'PostCompact'])
    const hooks = change.settings['hooks'] as Record<string, unknown[]>
    expect(hooks['PreToolUse']).toEqual(theirs.hooks.PreToolUse)
    expect(hooks['PreCompact']).toEqual([theirs.hooks.PreCompact[0], { hooks: [{ type: 'command', command: `${COMMAND} PreCompact`, timeout: 30 }] }])
    expect(hooks['SessionStart']![1]).toEqual({ matcher: 'compact', hooks: [{ type: 'command', command: `${COMMAND} SessionStart`, timeout: 30 }] })
    expect(change.settings['model']).toBe('opus')
    // The input is not modified.
    expect(theirs.hooks.PreCompact).toHaveLength(1)
  })

  it('changes nothing the second time', () => {
    const once = addHookEntries(theirs, 'claude-code', entries, 'settings.json')
    const twice = addHookEntries(once.settings, 'claude-code', entries, 'settings.json')
    expect(twice.changed).toBe(false)
    expect(twice.settings).toEqual(once.settings)
  })

  it('updates its own hook in place when the command changed, and drops extra copies', () => {
    const once = addHookEntries(theirs, 'claude-code', entries, 'settings.json')
    const hooks = once.settings['hooks'] as Record<string, Array<{ hooks: unknown[] }>>
    hooks['PostCompact']!.push({ hooks: [{ type: 'command', command: `${COMMAND} PostCompact` }] })
    const moved = addHookEntries(once.settings, 'claude-code', claudeCodeHost.entries('floorguard hook claude-code'), 'settings.json')
    expect(moved.updated).toEqual(['PreCompact', 'SessionStart', 'PostCompact'])
    const after = moved.settings['hooks'] as Record<string, Array<{ hooks: Array<{ command: string }> }>>
    expect(after['PostCompact']).toHaveLength(1)
    expect(after['PreCompact']![1]!.hooks[0]!.command).toBe('floorguard hook claude-code PreCompact')
    expect(after['PreCompact']![0]).toEqual(theirs.hooks.PreCompact[0])
  })

  it('creates the hooks object in empty settings', () => {
    expect(Object.keys(addHookEntries(undefined, 'claude-code', entries, 'f').settings['hooks'] as object)).toEqual(['PreCompact', 'SessionStart', 'PostCompact'])
  })

  it('refuses settings that are not the documented shape, naming the field', () => {
    expect(() => addHookEntries([], 'claude-code', entries, 'settings.json')).toThrow('settings.json: expected a JSON object at the top level, got an array')
    expect(() => addHookEntries({ hooks: [] }, 'claude-code', entries, 'settings.json')).toThrow('settings.json: hooks: expected an object of hook events, got an array')
    expect(() => addHookEntries({ hooks: { PreCompact: {} } }, 'claude-code', entries, 'settings.json')).toThrow('settings.json: hooks.PreCompact: expected an array of hook groups, got an object')
  })
})

describe('removeHookEntries', () => {
  it("undoes an install exactly, whatever other hooks the settings hold", () => {
    const hookArbitrary = fc.record({ type: fc.constant('command'), command: fc.stringMatching(/^[a-z./ -]{1,20}$/) })
    const groupArbitrary = fc.record({ matcher: fc.option(fc.constantFrom('Bash', 'startup', 'compact', '*'), { nil: undefined }), hooks: fc.array(hookArbitrary, { minLength: 1, maxLength: 3 }) }).map(
      ({ matcher, hooks }) => (matcher === undefined ? { hooks } : { matcher, hooks }),
    )
    const settingsArbitrary = fc.option(
      fc.dictionary(fc.constantFrom('PreCompact', 'SessionStart', 'PostCompact', 'PreToolUse', 'Stop'), fc.array(groupArbitrary, { minLength: 1, maxLength: 3 }), { minKeys: 1 }),
      { nil: undefined },
    )
    fc.assert(
      fc.property(settingsArbitrary, fc.boolean(), (hooks, withOther) => {
        const settings: Record<string, unknown> = { ...(withOther ? { theme: 'dark' } : {}), ...(hooks === undefined ? {} : { hooks }) }
        const installed = addHookEntries(settings, 'claude-code', entries, 'f')
        const removed = removeHookEntries(installed.settings, 'claude-code', 'f')
        expect([...removed.removed].sort()).toEqual(['PostCompact', 'PreCompact', 'SessionStart'])
        expect(removed.settings).toEqual(settings)
      }),
    )
  })

  it('removes nothing of another host and reports no change when nothing is installed', () => {
    const installed = addHookEntries(theirs, 'claude-code', entries, 'f')
    expect(removeHookEntries(installed.settings, 'codex', 'f').changed).toBe(false)
    expect(removeHookEntries(theirs, 'claude-code', 'f')).toMatchObject({ changed: false, settings: theirs })
  })

  it("skips Gemini's hooks.disabled list and recognizes floorguard's Gemini hooks by name", () => {
    const settings = { hooks: { disabled: ['secret-scanner'], BeforeAgent: [{ hooks: [{ name: 'mine', type: 'command', command: 'x.sh' }] }] } }
    const installed = addHookEntries(settings, 'gemini', geminiHost.entries('floorguard hook gemini'), 'f')
    expect(removeHookEntries(installed.settings, 'gemini', 'f').settings).toEqual(settings)
    expect(isFloorguardHook({ name: 'floorguard-precompress', command: '/elsewhere/run.sh' }, 'gemini')).toBe(true)
    expect(isFloorguardHook({ command: 'floorguard hook gemini BeforeAgent' }, 'claude-code')).toBe(false)
    expect(isFloorguardHook({ command: 'echo floorguard is great' }, 'claude-code')).toBe(false)
  })
})

describe('formatSettings', () => {
  it("keeps the file's indentation and line endings", () => {
    expect(detectIndent('{\n\t"a": 1\n}')).toBe('\t')
    expect(detectIndent('{\n    "a": 1\n}')).toBe('    ')
    expect(detectIndent('{"a":1}')).toBe('  ')
    expect(formatSettings({ a: [1] }, '{\r\n    "a": 0\r\n}')).toBe('{\r\n    "a": [\r\n        1\r\n    ]\r\n}\r\n')
    expect(formatSettings({ a: 1 }, undefined)).toBe('{\n  "a": 1\n}\n')
  })
})

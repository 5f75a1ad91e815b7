import { describe, expect, it } from 'vitest'
import { claudeCode, codex, gemini } from '../__fixtures__/payloads.js'
import type { HookPayload, PayloadResult } from '../types.js'
import { claudeCodeHost } from './claude-code.js'
import { codexHost } from './codex.js'
import { geminiHost } from './gemini.js'
import { getHookHost, HOOK_HOSTS } from './index.js'

function ok(result: PayloadResult): HookPayload {
  if (result.kind !== 'ok') throw new Error(`expected a payload, got: ${result.reason}`)
  return result.payload
}

function invalid(result: PayloadResult): string {
  if (result.kind !== 'invalid') throw new Error('expected the payload to be refused')
  return result.reason
}

describe('Claude Code payloads', () => {
  it('reads PreCompact (trigger, custom instructions) as the before role', () => {
    const payload = ok(claudeCodeHost.parse('PreCompact', claudeCode.PreCompact('/t/s.jsonl', 'manual')))
    expect(payload).toMatchObject({ host: 'claude-code', role: 'before', sessionId: 'cc-session-1', transcriptPath: '/t/s.jsonl', trigger: 'manual', customInstructions: 'keep the deployment steps' })
    expect(ok(claudeCodeHost.parse('PreCompact', claudeCode.PreCompact('/t/s.jsonl', 'auto'))).customInstructions).toBeUndefined()
  })

  it('reads SessionStart: compact puts the ledger back, every other source is ignored', () => {
    expect(ok(claudeCodeHost.parse('SessionStart', claudeCode.SessionStart('/t/s.jsonl', 'compact'))).role).toBe('after')
    for (const source of ['startup', 'resume', 'clear'] as const) {
      expect(ok(claudeCodeHost.parse('SessionStart', claudeCode.SessionStart('/t/s.jsonl', source))).role).toBe('ignore')
    }
  })

  it('reads PostCompact with its summary as the verify role', () => {
    const payload = ok(claudeCodeHost.parse('PostCompact', claudeCode.PostCompact('/t/s.jsonl', 'the summary')))
    expect(payload).toMatchObject({ role: 'verify', compactSummary: 'the summary', trigger: 'auto' })
  })

  it('refuses a payload that is not the documented shape, naming the field', () => {
    expect(invalid(claudeCodeHost.parse('PreCompact', { ...claudeCode.PreCompact('/t'), trigger: 'sometimes' }))).toBe('trigger: expected "manual" or "auto", got "sometimes"')
    expect(invalid(claudeCodeHost.parse('PreCompact', { ...claudeCode.PreCompact('/t'), session_id: 7 }))).toBe('session_id: expected a non-empty string, got 7')
    expect(invalid(claudeCodeHost.parse('PreCompact', claudeCode.PostCompact('/t', 's')))).toBe('hook_event_name: expected "PreCompact", got "PostCompact"')
    const { compact_summary: _, ...noSummary } = claudeCode.PostCompact('/t', 's')
    expect(invalid(claudeCodeHost.parse('PostCompact', noSummary))).toBe('compact_summary: expected a string, got nothing')
    expect(invalid(claudeCodeHost.parse('PreCompact', [1, 2]))).toBe('payload: expected a JSON object, got an array')
    expect(invalid(claudeCodeHost.parse('Stop', {}))).toMatch(/^claude-code has no "Stop" hook that floorguard handles: expected one of PreCompact, SessionStart, PostCompact$/)
  })

  it('answers SessionStart with additionalContext, PostCompact with systemMessage only, PreCompact blocks with decision', () => {
    const start = JSON.parse(claudeCodeHost.answer({ event: 'SessionStart', role: 'after' }, { kind: 'context', text: 'ledger' }).stdout)
    expect(start).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'ledger' } })
    const post = JSON.parse(claudeCodeHost.answer({ event: 'PostCompact', role: 'verify' }, { kind: 'notice', text: 'line' }).stdout)
    // PostCompact's hookSpecificOutput fails Claude Code's validation: systemMessage is the only field.
    expect(post).toEqual({ systemMessage: 'line' })
    const block = JSON.parse(claudeCodeHost.answer({ event: 'PreCompact', role: 'before' }, { kind: 'block', reason: 'why' }).stdout)
    expect(block).toEqual({ decision: 'block', reason: 'why' })
    expect(claudeCodeHost.answer({ event: 'PreCompact', role: 'before' }, { kind: 'instructions', text: 'keep these' }).stdout).toBe('keep these\n')
    expect(claudeCodeHost.answer({ event: 'PreCompact', role: 'before' }, { kind: 'none' })).toEqual({ stdout: '', exitCode: 0 })
    expect(claudeCodeHost.answer({ event: 'PostCompact', role: 'verify' }, { kind: 'block', reason: 'x' }).stdout).toBe('')
  })
})

describe('Codex CLI payloads', () => {
  it('reads PreCompact and PostCompact (no summary field) and SessionStart compact', () => {
    expect(ok(codexHost.parse('PreCompact', codex.PreCompact('/r.jsonl')))).toMatchObject({ role: 'before', trigger: 'auto', transcriptPath: '/r.jsonl' })
    expect(ok(codexHost.parse('PostCompact', codex.PostCompact('/r.jsonl')))).toMatchObject({ role: 'verify', compactSummary: undefined })
    expect(ok(codexHost.parse('SessionStart', codex.SessionStart('/r.jsonl', 'compact'))).role).toBe('after')
    expect(ok(codexHost.parse('SessionStart', codex.SessionStart('/r.jsonl', 'startup'))).role).toBe('ignore')
  })

  it('accepts a null transcript_path, as the schema allows', () => {
    expect(ok(codexHost.parse('PreCompact', codex.PreCompact(null))).transcriptPath).toBeUndefined()
  })

  it('cannot block or take instructions: those outcomes answer nothing', () => {
    expect(codexHost.answer({ event: 'PreCompact', role: 'before' }, { kind: 'block', reason: 'x' }).stdout).toBe('')
    expect(codexHost.answer({ event: 'PreCompact', role: 'before' }, { kind: 'instructions', text: 'x' }).stdout).toBe('')
    expect(JSON.parse(codexHost.answer({ event: 'SessionStart', role: 'after' }, { kind: 'context', text: 'ledger' }).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'ledger' },
    })
    expect(JSON.parse(codexHost.answer({ event: 'PostCompact', role: 'verify' }, { kind: 'notice', text: 'line' }).stdout)).toEqual({ systemMessage: 'line' })
  })
})

describe('Gemini CLI payloads', () => {
  it('reads PreCompress as before and BeforeAgent as after', () => {
    expect(ok(geminiHost.parse('PreCompress', gemini.PreCompress('/g.json')))).toMatchObject({ role: 'before', trigger: 'auto' })
    expect(ok(geminiHost.parse('BeforeAgent', gemini.BeforeAgent('/g.json', 'go on')))).toMatchObject({ role: 'after', prompt: 'go on' })
    expect(invalid(geminiHost.parse('BeforeAgent', { ...gemini.BeforeAgent('/g.json'), prompt: null }))).toBe('prompt: expected a string, got null')
  })

  it('answers JSON on stdout every time ({} when it has nothing to say), BeforeAgent context through hookSpecificOutput', () => {
    expect(geminiHost.neutral.stdout).toBe('{}\n')
    expect(geminiHost.answer({ event: 'PreCompress', role: 'before' }, { kind: 'block', reason: 'x' }).stdout).toBe('{}\n')
    const answer = JSON.parse(geminiHost.answer({ event: 'BeforeAgent', role: 'after' }, { kind: 'context', text: 'ledger', notice: 'line' }).stdout)
    expect(answer).toEqual({ systemMessage: 'line', hookSpecificOutput: { hookEventName: 'BeforeAgent', additionalContext: 'ledger' } })
  })
})

describe('host registry', () => {
  it('names every host and refuses an unknown one with the list', () => {
    expect(Object.keys(HOOK_HOSTS)).toEqual(['claude-code', 'codex', 'gemini'])
    expect(() => getHookHost('cursor')).toThrow('unknown host "cursor": expected one of claude-code, codex, gemini')
  })

  it('gives every event a hook entry whose command ends with the event, with the host timeout unit', () => {
    for (const host of Object.values(HOOK_HOSTS)) {
      const entries = host.entries('floorguard hook X')
      expect(entries.map((entry) => entry.event)).toEqual([...host.events])
      for (const entry of entries) expect(entry.hook['command']).toBe(`floorguard hook X ${entry.event}`)
    }
    // Gemini's timeout is in milliseconds, the others' in seconds.
    expect(geminiHost.entries('c')[0]!.hook['timeout']).toBe(30_000)
    expect(claudeCodeHost.entries('c')[0]!.hook['timeout']).toBe(30)
    expect(claudeCodeHost.entries('c').find((entry) => entry.event === 'SessionStart')!.matcher).toBe('compact')
  })
})

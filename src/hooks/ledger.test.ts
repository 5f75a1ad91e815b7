import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import { createTokenizer } from '../tokenize/index.js'
import { readTranscript, sourceFromString } from '../transcript/index.js'
import { claudeCodeLog, FACTS, OLD_PATH } from './__fixtures__/logs.js'
import { buildLedger } from './ledger.js'
import { pendingRegion } from './region.js'

async function ledgerOf(log: string) {
  const transcript = await readTranscript(sourceFromString('log', log), { format: 'claude-code', lenient: true, keepSource: false })
  const tokenizer = await createTokenizer('approx')
  const region = pendingRegion(transcript.messages)
  return { region, ledger: buildLedger({ messages: transcript.messages, region, estimator: createEstimator({ tokenizer }), tokenizer }) }
}

describe('buildLedger', () => {
  it("holds the region's items verbatim, with the planner's statuses: a replaced pin superseded, the new one current", async () => {
    const { region, ledger } = await ledgerOf(claudeCodeLog({ turns: 1 }))
    expect(ledger.range).toEqual([region.start, region.end])
    const byText = new Map(ledger.items.map((item) => [item.text, item]))
    expect(byText.get(FACTS.constraint)).toMatchObject({ kind: 'constraint', status: 'current' })
    expect(byText.get(FACTS.oldPin)).toMatchObject({ status: 'superseded', key: 'pin:fsspec' })
    expect(byText.get(FACTS.newPin)).toMatchObject({ status: 'current', key: 'pin:fsspec' })
    expect(byText.get(FACTS.error)).toMatchObject({ kind: 'error', status: 'current' })
    expect(byText.get(FACTS.command)).toMatchObject({ kind: 'tool-argument' })
    expect(ledger.items.some((item) => item.text.includes(OLD_PATH))).toBe(false)
    expect(ledger.items.every((item) => item.message >= region.start && item.message < region.end)).toBe(true)
    expect(ledger.floor.total).toBeGreaterThan(ledger.floor.irreducible)
    expect(ledger.tokens).toBeGreaterThan(ledger.floor.irreducible)
  })

  it('lists each text once', async () => {
    const { ledger } = await ledgerOf(claudeCodeLog({ turns: 6 }))
    expect(new Set(ledger.items.map((item) => item.text)).size).toBe(ledger.items.length)
  })

  it('is empty for an empty region', async () => {
    const tokenizer = await createTokenizer('approx')
    const ledger = buildLedger({ messages: [], region: { start: 0, end: 0 }, estimator: createEstimator({ tokenizer }), tokenizer })
    expect(ledger).toEqual({ range: [0, 0], floor: { irreducible: 0, margin: 0, total: 0 }, tokens: 0, items: [] })
  })
})

describe('what the hook put back, at the next compaction (a re-test: the put-back was lost there)', () => {
  it('is read from Claude Code 2.1\'s attachment record, so the next ledger carries its items; another hook\'s context is not', async () => {
    const { renderInjection } = await import('./inject.js')
    const putBack = renderInjection({
      items: [{ kind: 'path', text: '/srv/ingest/keys/deploy_ed25519', tokens: 8, message: 0, start: 0, end: 31, status: 'current' as const }],
      messages: [{ role: 'user', parts: [{ type: 'text', text: '/srv/ingest/keys/deploy_ed25519' }] }],
      cap: 9000,
      file: '/home/dev/.floorguard/ledger.md',
      host: 'Claude Code',
    }).text
    const log = claudeCodeLog({ turns: 1 }).trimEnd().split('\n')
    // Right after Claude Code's summary (line 4): the SessionStart put-back, then another hook's context.
    const attachment = (content: string[], uuid: string) =>
      JSON.stringify({ parentUuid: null, isSidechain: false, type: 'attachment', uuid, sessionId: 'cc-session-1', attachment: { type: 'hook_additional_context', content, hookName: 'SessionStart:compact', hookEvent: 'SessionStart' } })
    log.splice(4, 0, attachment([putBack], 'att-1'), attachment(['You have superpowers. You MUST use the Skill tool.'], 'att-2'))
    const { region, ledger } = await ledgerOf(`${log.join('\n')}\n`)
    expect(ledger.items.map((item) => item.text)).toContain('/srv/ingest/keys/deploy_ed25519')
    expect(ledger.items.some((item) => item.text.includes('superpowers') || item.text.includes('Skill tool'))).toBe(false)
    expect(region.start).toBeGreaterThan(0)
  })
})

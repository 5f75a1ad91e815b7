import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { Transcript } from '../../spec/transcript.js'
import { testTranscriptFormat } from '../../test-utils/transcript-format.js'
import { readTranscript } from '../read.js'
import { sourceFromString } from '../source.js'
import { aiSdkFormat } from './ai-sdk.js'

const fixture = (name: string): string => readFileSync(new URL(`./__fixtures__/ai-sdk/${name}`, import.meta.url), 'utf8')
const read = (text: string, name = 'messages.json'): Promise<Transcript> => aiSdkFormat.read(sourceFromString(name, text))

testTranscriptFormat({
  format: aiSdkFormat,
  fixtures: [
    { name: 'v6-tools.json', text: fixture('v6-tools.json'), expect: { messages: 9, toolCalls: 4, toolResults: 4, unpaired: 0 } },
    { name: 'v4-args.json', text: fixture('v4-args.json'), expect: { messages: 4, toolCalls: 2, toolResults: 2, unpaired: 0 } },
    { name: 'generate-text.json', text: fixture('generate-text.json'), expect: { messages: 3, toolCalls: 0, toolResults: 0, unpaired: 0 } },
  ],
})

describe('ai-sdk format', () => {
  it('maps every output type, error outputs to isError', async () => {
    const transcript = await read(fixture('v6-tools.json'))
    const results = transcript.messages.flatMap((message) => message.parts.filter((part) => part.type === 'tool-result'))
    expect(results).toEqual([
      { type: 'tool-result', callId: 'call_lookup_1', name: 'lookupCharges', content: '{"charges":[{"id":"ch_3PXq","amount":149},{"id":"ch_3PXr","amount":149}]}', isError: false },
      { type: 'tool-result', callId: 'call_policy_1', name: 'getRefundPolicy', content: 'PolicyService timeout after 30000ms', isError: true },
      { type: 'tool-result', callId: 'call_refund_1', name: 'refundCharge', content: 'Refund re_9Kd2 created for $149.00\n[image]', isError: false },
      { type: 'tool-result', callId: 'call_mail_1', name: 'sendEmail', content: '[execution denied: user did not approve outbound email]', isError: true },
    ])
    expect(transcript.messages[1]!.parts).toEqual([
      { type: 'text', text: 'Order ORD-77120 was charged twice. Screenshot attached.' },
      { type: 'text', text: '[image]' },
      { type: 'text', text: '[file: invoice-77120.pdf]' },
    ])
    expect(transcript.messages[2]!.parts[0]).toEqual({ type: 'reasoning', text: 'Look up both charges before refunding; check the $200 limit.' })
  })

  it('accepts the v4 args / result / isError fields', async () => {
    const transcript = await read(fixture('v4-args.json'))
    expect(transcript.messages[1]!.parts[1]).toEqual({ type: 'tool-call', id: 'tc_1', name: 'convert', arguments: { amount: 250, from: 'EUR', to: 'NOK' } })
    expect(transcript.messages[2]!.parts).toEqual([
      { type: 'tool-result', callId: 'tc_1', name: 'convert', content: '{"amount":2931.25,"currency":"NOK"}', isError: false },
      { type: 'tool-result', callId: 'tc_2', name: 'convert', content: 'rate source unavailable', isError: true },
    ])
  })

  it('reads a generateText-style top-level system prompt', async () => {
    const transcript = await read(fixture('generate-text.json'))
    expect(transcript.messages[0]).toMatchObject({ role: 'system', provenance: { pointer: '/system' } })
    expect(transcript.messages[1]!.provenance).toEqual({ pointer: '/messages/0' })
  })

  it('refuses UIMessages and wrong part types with the field named', async () => {
    await expect(read('[{"id":"m1","role":"user","parts":[{"type":"text","text":"hi"}]}]')).rejects.toThrow(
      'messages.json: /0/content: expected a ModelMessage `content` (this is a UIMessage; convert it with convertToModelMessages), got undefined',
    )
    await expect(read('[{"role":"tool","content":[{"type":"text","text":"x"}]}]')).rejects.toThrow(
      'messages.json: /0/content/0/type: expected a tool part type of tool-result or tool-approval-response, got "text"',
    )
    await expect(read('[{"role":"system","content":[{"type":"text","text":"x"}]}]')).rejects.toThrow('/0/content: expected a string (system content), got array')
    await expect(read('[{"role":"tool","content":[{"type":"tool-result","toolCallId":"a","toolName":"b","output":{"type":"xml","value":""}}]}]')).rejects.toThrow(
      '/0/content/0/output/type: expected an output type of text, json',
    )
  })

  it('synthesizes tool results as text or error-text outputs', () => {
    const written = JSON.parse(
      aiSdkFormat.write!({
        format: 'ai-sdk',
        pairs: [],
        unpaired: [],
        messages: [
          { role: 'user', parts: [{ type: 'summary', text: 'Summary: ORD-77120 refunded.', source: 'floorguard' }] },
          { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', name: 'f', content: 'bad', isError: true }] },
        ],
      }),
    )
    expect(written).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Summary: ORD-77120 refunded.' }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'error-text', value: 'bad' } }] },
    ])
  })
})

describe('an AI SDK v5/v6 UIMessage array under auto-detection (a re-test: "no format claims")', () => {
  // v5/v6 UIMessages have `parts` only (step-start, data-*, tool-NAME parts), no `content`; v4's also had `content`.
  const v5 = JSON.stringify([
    { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'who is Ada?' }] },
    {
      id: 'a1',
      role: 'assistant',
      parts: [
        { type: 'step-start' },
        { type: 'data-source', id: 'source-1', data: { path: 'knowledge/profile.json' } },
        { type: 'tool-getProfile', toolCallId: 'call_1', state: 'output-available', input: { name: 'Ada' }, output: { role: 'Engineer' } },
        { type: 'text', text: 'Ada is an engineer.' },
      ],
    },
  ])

  it('gets the convertToModelMessages hint, as a v4 UIMessage does', async () => {
    await expect(readTranscript(sourceFromString('ui.json', v5))).rejects.toThrow('this is a UIMessage; convert it with convertToModelMessages')
    const v4 = '[{"id":"a","role":"user","content":"hi","parts":[{"type":"text","text":"hi"}]}]'
    await expect(readTranscript(sourceFromString('ui.json', v4))).rejects.toThrow('convert it with convertToModelMessages')
  })

  it('leaves Gemini contents (untyped `parts`) to the gemini format', async () => {
    const contents = '[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"text":"hello"}]}]'
    expect((await readTranscript(sourceFromString('c.json', contents))).format).toBe('gemini')
  })
})

import { describe, expect, it } from 'vitest'
import { createEstimator } from '../estimate/index.js'
import type { Message, Transcript } from '../spec/transcript.js'
import { createTokenizer } from '../tokenize/index.js'
import { pairToolCalls } from '../transcript/render.js'
import { compactTranscript } from './compact.js'

const tokenizer = await createTokenizer('o200k_base')
const estimator = createEstimator({ name: 'full', tokenizer })

function transcriptOf(messages: Message[]): Transcript {
  return { format: 'openai', messages, ...pairToolCalls(messages) }
}

/** The entries of the first state block of `text`, read with a plain line walk (not the module under test). */
function blockLines(text: string): string[] {
  const lines = text.split('\n')
  const open = lines.findIndex((line) => line.startsWith('<floorguard-state v="2"'))
  const close = lines.indexOf('</floorguard-state>')
  return lines.slice(open + 1, close)
}

const narrative = (topic: string) => `We looked at ${topic} again and talked it through at length before moving on to the next part of the work. `.repeat(6)

describe('re-compaction carries an earlier summary forward', () => {
  it('a summary of summaries keeps every older item still in force, and keeps stale ones stale (regression: a second pass dropped what the first kept)', async () => {
    const first: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Never push directly to the release branch.' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'Bash', arguments: { command: 'python upload.py --bucket media-eu-1' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c1', content: "OSError: [Errno 28] No space left on device: '/var/tmp/x.bin'", isError: true }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c2', name: 'Bash', arguments: { command: 'python upload.py --bucket media-eu-1' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c2', content: 'uploaded 12 files', isError: false }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'c3', name: 'Bash', arguments: { command: "cat > run.sh << 'EOF'\nexport LR=3e-4\npython train.py --max_steps 3000\nEOF" } }] },
      { role: 'tool', parts: [{ type: 'tool-result', callId: 'c3', content: '', isError: false }] },
      { role: 'assistant', parts: [{ type: 'text', text: `Pinning fsspec==2024.6.1 for now. ${narrative('the upload path')}` }] },
      { role: 'user', parts: [{ type: 'text', text: `Actually use fsspec>=2023.1,<2024.3 instead of fsspec==2024.6.1. ${narrative('the pins')}` }] },
      { role: 'assistant', parts: [{ type: 'text', text: narrative('the retry logic') }] },
    ]
    const once = await compactTranscript(transcriptOf(first), { estimator, tokenizer, slot: 2000, range: { start: 0, end: 10 } })
    expect(once.kind).toBe('compacted')
    const summary1 = once.summaries[0]!.text
    expect(summary1).toMatch(/\[superseded[^\]]*\] OSError: \[Errno 28\]/)
    for (const text of ['Never push directly to the release branch.', 'fsspec>=2023.1,<2024.3', 'fsspec==2024.6.1', "OSError: [Errno 28] No space left on device: '/var/tmp/x.bin'"]) expect(summary1).toContain(text)

    // The next window: the first summary, then new work that does not mention the old state at all.
    const second: Message[] = [
      once.transcript!.messages[0]!,
      { role: 'assistant', parts: [{ type: 'text', text: narrative('the dashboard layout') }] },
      { role: 'user', parts: [{ type: 'text', text: narrative('the colours') }] },
      { role: 'assistant', parts: [{ type: 'text', text: narrative('the tests') }] },
    ]
    const twice = await compactTranscript(transcriptOf(second), { estimator, tokenizer, slot: 2000, range: { start: 0, end: 4 } })
    expect(twice.kind).toBe('compacted')
    const lines = blockLines(twice.summaries[0]!.text)
    const lineOf = (text: string) => lines.find((line) => line.endsWith(text))
    expect(lineOf('Never push directly to the release branch.')).toBeDefined()
    expect(lineOf('Never push directly to the release branch.')).not.toMatch(/\[superseded/)
    expect(lineOf('fsspec>=2023.1,<2024.3')).not.toMatch(/\[superseded/)
    expect(lineOf('fsspec==2024.6.1')).toMatch(/\[superseded/)
    // The error was fixed in the first window (the same command then succeeded): it stays marked stale.
    expect(lineOf("OSError: [Errno 28] No space left on device: '/var/tmp/x.bin'")).toMatch(/\[superseded/)
    // A multi-line command survives whole, as one item.
    expect(twice.summaries[0]!.text).toContain("cat > run.sh << 'EOF'\nexport LR=3e-4\npython train.py --max_steps 3000\nEOF")
    expect(lines.some((line) => /^-4 \[/.test(line) && line.endsWith("cat > run.sh << 'EOF'"))).toBe(true)
  })
})

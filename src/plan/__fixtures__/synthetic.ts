import type { Message } from '../../spec/transcript.js'
import { assistant, call, result, user } from './test-estimator.js'

/** Options of {@link createSyntheticSegment}. */
export interface SyntheticSegmentOptions {
  /** Number of messages (about). */
  readonly messages: number
  /** `agent`: coding-agent turns (tool calls, outputs, errors, pins, paths). `sparse`: long narrative, few items. */
  readonly shape: 'agent' | 'sparse'
  /** @default 1 */
  readonly seed?: number
}

/** A small deterministic PRNG (mulberry32), so benchmarks and tests see the same segment every run. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

const PROSE = 'We looked at the module layout and agreed the next step is to read the remaining handlers before changing anything. '

/**
 * A synthetic transcript segment for benchmarks: realistic text that both the planner's test estimator
 * (`TOKEN<n>` words) and the real extractors (paths, versions, errors, env) find items in.
 */
export function createSyntheticSegment(options: SyntheticSegmentOptions): Message[] {
  const next = random(options.seed ?? 1)
  const pick = (n: number) => Math.floor(next() * n)
  const messages: Message[] = []
  let turn = 0
  while (messages.length < options.messages) {
    turn++
    if (options.shape === 'sparse') {
      const item = () => (next() < 0.05 ? ` TOKEN${pick(500)}x${20 + pick(60)} /srv/app/src/file${pick(500)}.ts` : '')
      messages.push(user(`${PROSE.repeat(3)}${item()}`))
      messages.push(assistant(`${PROSE.repeat(4)}${item()}`))
      continue
    }
    messages.push(user(`Turn ${turn}: keep paths under /srv/app/src/module${pick(40)} and never touch TOKEN${pick(300)}.${next() < 0.05 ? ` MAX_RETRIES=${1 + pick(5)}` : ''}`))
    const steps = 2 + pick(8)
    for (let step = 0; step < steps && messages.length < options.messages; step++) {
      const id = `call_${turn}_${step}`
      const failing = next() < 0.15
      const command = next() < 0.5 ? 'npm test' : `cat /srv/app/src/module${pick(40)}/index.ts`
      messages.push(assistant(next() < 0.3 ? `Checking TOKEN${pick(2000)} next.` : '', call(id, 'bash', { command })))
      const output = failing
        ? `Error: ENOENT: no such file or directory, open '/srv/app/src/module${pick(40)}/config.json' TOKEN${pick(2000)}x${5 + pick(30)}\nExit code: 1`
        : `${'const value = compute(input)\n'.repeat(20 + pick(40))}TOKEN${pick(2000)} requests==2.${pick(4)}.0`
      messages.push(result(id, output, failing))
    }
    messages.push(assistant(`${PROSE}Done with turn ${turn}${next() < 0.05 ? `; threshold: 0.${pick(9)}` : ''} TOKEN${pick(2000)}`))
  }
  return messages.slice(0, options.messages)
}

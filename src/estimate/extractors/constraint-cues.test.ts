import { beforeAll, describe, expect, it } from 'vitest'
import type { FloorEstimatorV1 } from '../../spec/estimator.js'
import type { Message } from '../../spec/transcript.js'
import { createTokenizer } from '../../tokenize/index.js'
import { createFullEstimator } from '../full.js'

// A re-test on a real Codex 0.60 rollout (session 11) found user directives holding a cue word that were no
// constraint: `Make it so …, to make sure …` (the `make sure` is a purpose; the directive is `Make it so`) and `… the
// highlight … should only have a quarter-circle in each corner` (`only` after a clause that opens with its subject).
// The messages below have the log's shape, not its text.

let full: FloorEstimatorV1
beforeAll(async () => {
  full = createFullEstimator({ tokenizer: await createTokenizer('o200k_base') })
})

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] })
const constraints = (text: string) => full.extract(user(text), 0).filter((item) => item.kind === 'constraint').map((item) => item.text)

describe('directives with a cue word', () => {
  it('`make it so` opening a sentence or after a lead, in any case, inside a longer message', () => {
    const make = 'Make it so the width of the sidebar is fixed in pixels, to make sure it never jumps.'
    const also = 'also make it so the "save" and "undo" buttons sit on the left'
    expect(constraints(`${make} Right now it grows with its content. ${also}. And the title text is gone`)).toEqual([make, also + '.'])
  })

  it('a cue right after `should`, `shall` or `must`, whatever the clause opens with', () => {
    const only = 'But the badge for the row that can be archived should only show a dot in the corner (not the full label).'
    const always = 'the footer shall always stay visible'
    expect(constraints(`That's close. ${only} The blue badge pulses too`)).toEqual([only])
    expect(constraints(`ok. ${always}`)).toEqual([always])
  })

  it('adds no noise: a description with `only`, a question, a purpose, `should` alone, a report', () => {
    expect(constraints('There is only one page where you edit the profile.')).toEqual([])
    expect(constraints('Why should it only run once?')).toEqual([])
    expect(constraints('I ran the script to make sure it works.')).toEqual([])
    expect(constraints('It should open a new tab.')).toEqual([])
    expect(constraints('The job that was scheduled should only have run once.')).toEqual([])
    expect(constraints('We made it so the cache is warm.')).toEqual([])
  })
})

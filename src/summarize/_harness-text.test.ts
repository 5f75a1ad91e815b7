import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { harnessRuns, hasOwnText } from './_harness-text.js'

describe('harness text in a user turn', () => {
  it("cuts out the blocks a harness writes (tag names with - or _), not a user's own markup", () => {
    const text = '<ide_opened_file>The user opened the file /repo/a.ts in the IDE.</ide_opened_file>\nuse `gh` to authenticate\n<b>bold</b> <system-reminder>\nBe brief.\n</system-reminder> done'
    expect(harnessRuns(text)).toEqual([
      { text: '<ide_opened_file>The user opened the file /repo/a.ts in the IDE.</ide_opened_file>', harness: true },
      { text: '\nuse `gh` to authenticate\n<b>bold</b> ', harness: false },
      { text: '<system-reminder>\nBe brief.\n</system-reminder>', harness: true },
      { text: ' done', harness: false },
    ])
  })

  it('an unclosed block runs to the end of its line; attributes are allowed; a closing tag before the opening one is not its end', () => {
    expect(harnessRuns('</task-notification> x <task-notification id="1">Background job done\nthen fix it')).toEqual([
      { text: '</task-notification> x ', harness: false },
      { text: '<task-notification id="1">Background job done', harness: true },
      { text: '\nthen fix it', harness: false },
    ])
  })

  it('hasOwnText: only harness blocks and whitespace hold none of the user\'s words', () => {
    expect(hasOwnText('<command-name>/clear</command-name>\n  <command-args></command-args>')).toBe(false)
    expect(hasOwnText('<command-name>/clear</command-name> and keep the tests')).toBe(true)
    expect(hasOwnText('a < b and c > d')).toBe(true)
  })

  it('property: the runs join back to the text, and every harness run opens with a tag whose name holds - or _', () => {
    const piece = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('<a-b>', '</a-b>', '<x_y z="1">', '</x_y>', '<div>', '</div>', '\n', '<', '>', '<a-'))
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join('')
        const runs = harnessRuns(text)
        expect(runs.map((run) => run.text).join('')).toBe(text)
        for (const run of runs) if (run.harness) expect(run.text).toMatch(/^<[A-Za-z][A-Za-z0-9]*[-_][-_A-Za-z0-9]*[\s>]/)
      }),
      { numRuns: 300 },
    )
  })

  it('hostile input: many distinct unclosed tags are still one pass (each closing list is walked forward only)', () => {
    const text = Array.from({ length: 20_000 }, (_, index) => `<t-${index}> x`).join('\n')
    const runs = harnessRuns(text)
    expect(runs.filter((run) => run.harness)).toHaveLength(20_000)
    expect(runs.map((run) => run.text).join('')).toBe(text)
  })
})

import { expect, it } from 'vitest'
import type { FloorItem } from '../spec/estimator.js'
import type { Message } from '../spec/transcript.js'
import { segmentItems } from './segment-items.js'

const message = (...texts: string[]): Message => ({ role: 'user', parts: [{ type: 'text', text: texts.join(' ') }] })
const extract = (value: Message, index: number): FloorItem[] =>
  (value.parts[0]!.type === 'text' ? value.parts[0]!.text : '').split(' ').map((text, at) => ({ kind: 'identifier', text, tokens: 1, message: index, start: at, end: at + 1 }))

it('keeps the first item of each text across the segment, with its message index', () => {
  const items = segmentItems([message('a', 'b'), message('b', 'c', 'a')], 3, extract)
  expect(items.map((item) => [item.text, item.message])).toEqual([['a', 3], ['b', 3], ['c', 4]])
})

it('deduplicates within a message unless the extractor promises distinct items', () => {
  expect(segmentItems([message('a', 'a')], 0, extract).map((item) => item.text)).toEqual(['a'])
  // Promised distinct, one message is returned as extracted (the promise is the caller's to keep).
  expect(segmentItems([message('a', 'a')], 0, extract, true).map((item) => item.text)).toEqual(['a', 'a'])
  expect(segmentItems([message('a', 'b'), message('a')], 0, extract, true).map((item) => item.text)).toEqual(['a', 'b'])
})

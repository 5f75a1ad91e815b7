import { describe, expect, it } from 'vitest'
import { imageReferenceAt, isImageReference } from './images.js'

describe('imageReferenceAt', () => {
  it('reads a reference whole: name segments, a registry port, the tag; a full stop after it is not its own', () => {
    const text = 'FROM localhost:5000/team/app:2024.06-rc1. Then'
    const found = imageReferenceAt(text, 5, text.length)
    expect(found && text.slice(5, found.colon)).toBe('localhost:5000/team/app')
    expect(found && text.slice(found.colon + 1, found.end)).toBe('2024.06-rc1')
  })

  it('takes references by their shape, not their words', () => {
    for (const word of ['pytorch/pytorch:2.4.0-cuda12.1-cudnn9-devel', 'ghcr.io/org/app:v1.2.3', 'python:3.11-slim', 'node:20-alpine', 'a/b:x1']) {
      expect(isImageReference(word), word).toBe(true)
    }
    // A line number, a port, a key with its value, a status with an id, an upper-case name, a URL, a tag with no digit.
    for (const word of ['src/app.ts:12', 'localhost:8080', 'lr:0.001', 'error:123e4567-e89b', 'Qwen/Qwen3:0.6B', 'https://x.io/a:1.0', 'org/app:latest', 'a/b:1.0/c']) {
      expect(isImageReference(word), word).toBe(false)
    }
  })

  it('gives up on a tag longer than Docker allows, and stops at the end it is given', () => {
    expect(isImageReference(`org/app:1${'a'.repeat(128)}`)).toBe(false)
    expect(isImageReference(`org/app:1${'a'.repeat(120)}`)).toBe(true)
    const text = 'org/app:1.2.3-tail'
    expect(imageReferenceAt(text, 0, 13)?.end).toBe(13)
  })
})

/**
 * Reading the transcripts of the labelled sample, for the label tool and the sample's test (never for gold itself).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Transcript } from '../../spec/transcript.js'
import { readTranscript, sourceFromString } from '../../transcript/index.js'
import { isRepoFile } from './labels.js'

/** The repository root (the same from src/eval/gold and dist/eval/gold). */
export const repoRoot = (): string => fileURLToPath(new URL('../../../', import.meta.url))

/** The real-transcript corpus, `<repo>/../shared/corpus/real/`, or undefined when absent (a fresh clone). */
export function corpusRoot(): string | undefined {
  const root = join(repoRoot(), '..', 'shared', 'corpus', 'real')
  return existsSync(root) ? root : undefined
}

/** Absolute path of a sample file: repo fixtures from the repo root, corpus files from the corpus (undefined when absent). */
export function pathOf(file: string): string | undefined {
  if (isRepoFile(file)) return join(repoRoot(), file)
  const corpus = corpusRoot()
  return corpus === undefined ? undefined : join(corpus, file)
}

/** Reads a sample transcript with the project's readers (`auto`, lenient), or undefined when its file is absent. */
export async function readSampleTranscript(file: string): Promise<Transcript | undefined> {
  const path = pathOf(file)
  if (path === undefined || !existsSync(path)) return undefined
  return readTranscript(sourceFromString(path, readFileSync(path, 'utf8')), { format: 'auto', lenient: true })
}

import type { FormatSource } from '../spec/format.js'
import type { Transcript } from '../spec/transcript.js'
import { readTranscript, type ReadTranscriptOptions } from '../transcript/read.js'

/**
 * readKeepingCompactions(source, options) = readTranscript(source, { ...options, keepSource: false }), except that a
 * message read from a Codex `compacted` record that carries a `replacement_history` keeps that record as its `source`:
 * an audit needs what each compaction kept (see audit/segments.ts), and keeping every record's source would hold the
 * whole log in memory twice.
 */
export async function readKeepingCompactions(source: FormatSource, options: Omit<ReadTranscriptOptions, 'keepSource'>): Promise<Transcript> {
  const records = new Map<number, unknown>()
  return withCompactionRecords(await readTranscript(tapCompactions(source, records), { ...options, keepSource: false }), records)
}

/** `source` with its lines watched for Codex `compacted` records that carry a `replacement_history`, kept by line. */
function tapCompactions(source: FormatSource, records: Map<number, unknown>): FormatSource {
  return {
    ...source,
    async *lines() {
      for await (const entry of source.lines()) {
        if (entry.text.includes('replacement_history')) {
          try {
            const record: unknown = JSON.parse(entry.text)
            if (record !== null && typeof record === 'object' && (record as Record<string, unknown>)['type'] === 'compacted') records.set(entry.line, record)
          } catch {
            // Not JSON: the reader reports it.
          }
        }
        yield entry
      }
    },
  }
}

/** The transcript with each message read from a watched `compacted` line holding that record as its `source`. */
function withCompactionRecords(transcript: Transcript, records: ReadonlyMap<number, unknown>): Transcript {
  if (records.size === 0) return transcript
  const messages = transcript.messages.map((message) => {
    const record = message.provenance?.line === undefined ? undefined : records.get(message.provenance.line)
    return record === undefined ? message : { ...message, source: [record] }
  })
  return { ...transcript, messages }
}

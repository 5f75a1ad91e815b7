import { unlinkSync } from 'node:fs'
import { constants } from 'node:os'
import type { SummarizerV1 } from '../spec/summarizer.js'

/** Signals that end the CLI after cleaning up, as a shell's Ctrl-C, `kill` and a closed terminal send them. */
export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const

/** An interrupt signal's name. */
export type InterruptSignal = (typeof INTERRUPT_SIGNALS)[number]

/** The part of `process` the handler uses (tests pass an EventEmitter with an `exit` of their own). */
export interface SignalTarget {
  on(event: InterruptSignal | 'exit', listener: (signal?: unknown) => void): unknown
  off(event: InterruptSignal | 'exit', listener: (signal?: unknown) => void): unknown
  exit(code: number): void
}

/** What {@link installInterrupts} gives the commands (through `CliIo`). */
export interface Interrupts {
  /** Aborted on an interrupt, at exit and by `dispose`: every running command summarizer kills its process group. */
  readonly signal: AbortSignal
  /** Registers a temp file to remove on an interrupt or at exit; returns the function that unregisters it. */
  readonly trackTempFile: (path: string) => () => void
  /**
   * Resolves after one turn of the event loop, in which a signal that arrived during synchronous work (an estimate of a
   * large file) is dispatched to its handler: the process then ends with 128 + its number instead of going on. Await it
   * before writing output and before `dispose`, which would otherwise uninstall the handlers with the signal pending
   * and the signal would be lost.
   */
  readonly settle: () => Promise<void>
  /** The signal that interrupted the run, once its handler ran (a test's target does not exit). */
  readonly received: () => InterruptSignal | undefined
  /** Aborts, removes what is still registered and uninstalls the handlers (the default signal actions return). */
  readonly dispose: () => void
}

/**
 * Installs handlers for SIGINT, SIGTERM and SIGHUP: abort (summarizer process groups are killed synchronously by
 * their abort listeners), remove registered temp files, then exit with 128 + the signal's number (130, 143, 129),
 * the status a shell reports for a process a signal ended. The same cleanup runs at `exit` (an uncaught exception).
 */
export function installInterrupts(target: SignalTarget = process as unknown as SignalTarget): Interrupts {
  const controller = new AbortController()
  const tempFiles = new Set<string>()
  const cleanUp = (): void => {
    controller.abort()
    for (const path of tempFiles) {
      try {
        unlinkSync(path)
      } catch {
        // Already renamed into place or never created.
      }
    }
    tempFiles.clear()
  }
  let received: InterruptSignal | undefined
  const handlers = INTERRUPT_SIGNALS.map((name) => {
    const handler = (): void => {
      received ??= name
      cleanUp()
      target.exit(128 + constants.signals[name])
    }
    target.on(name, handler)
    return [name, handler] as const
  })
  target.on('exit', cleanUp)
  return {
    signal: controller.signal,
    trackTempFile(path) {
      tempFiles.add(path)
      return () => void tempFiles.delete(path)
    },
    async settle() {
      // Node reads a signal in the loop's poll phase. From inside a poll callback (a file read's completion) the next
      // immediate runs in this very iteration, before the loop polls again: the second one comes after a poll.
      for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve))
      if (received) target.exit(128 + constants.signals[received])
    },
    received: () => received,
    dispose() {
      cleanUp()
      for (const [name, handler] of handlers) target.off(name, handler)
      target.off('exit', cleanUp)
    },
  }
}

/**
 * Wraps a summarizer so that each call is also aborted by `signal` (the CLI's interrupt signal): a command summarizer
 * then kills its process group on Ctrl-C, SIGTERM, an exception or exit. Listeners are removed when the call ends.
 */
export function abortableSummarizer(summarizer: SummarizerV1, signal: AbortSignal): SummarizerV1 {
  return {
    specificationVersion: 'v1',
    name: summarizer.name,
    async summarize(request) {
      const controller = new AbortController()
      const abort = (): void => controller.abort()
      const sources = [signal, request.abortSignal].filter((source): source is AbortSignal => source !== undefined)
      for (const source of sources) source.addEventListener('abort', abort, { once: true })
      if (sources.some((source) => source.aborted)) abort()
      try {
        return await summarizer.summarize({ ...request, abortSignal: controller.signal })
      } finally {
        for (const source of sources) source.removeEventListener('abort', abort)
      }
    },
  }
}

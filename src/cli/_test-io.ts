import { Readable } from 'node:stream'
import type { CliIo } from './_command.js'
import { runCli } from './main.js'

/** Runs the CLI in-process with captured streams (tests only). */
export async function runCaptured(argv: readonly string[], options: { stdin?: string; cwd?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    stdin: Readable.from([Buffer.from(options.stdin ?? '')]),
    cwd: options.cwd ?? process.cwd(),
    env: {},
  }
  const code = await runCli(argv, io)
  return { code, stdout, stderr }
}

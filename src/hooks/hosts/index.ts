import { FloorguardError } from '../../errors.js'
import type { HookHostV1, HostName } from '../types.js'
import { claudeCodeHost } from './claude-code.js'
import { codexHost } from './codex.js'
import { geminiHost } from './gemini.js'

export { CLAUDE_CODE_CONTEXT_CAP, claudeCodeHost } from './claude-code.js'
export { CODEX_CONTEXT_CAP, codexHost } from './codex.js'
export { GEMINI_CONTEXT_CAP, geminiHost } from './gemini.js'

/** The hosts floorguard has hooks for, by the name `floorguard hook HOST EVENT` takes. */
export const HOOK_HOSTS = {
  'claude-code': claudeCodeHost,
  codex: codexHost,
  gemini: geminiHost,
} as const satisfies Record<HostName, HookHostV1>

/** Whether `name` is a host floorguard has hooks for. */
export function isHostName(name: string): name is HostName {
  return Object.hasOwn(HOOK_HOSTS, name)
}

/** The host of a name; an unknown name throws with the known ones. */
export function getHookHost(name: string): HookHostV1 {
  if (!isHostName(name)) {
    throw new FloorguardError('unknown-name', `unknown host ${JSON.stringify(name)}: expected one of ${Object.keys(HOOK_HOSTS).join(', ')}`)
  }
  return HOOK_HOSTS[name]
}

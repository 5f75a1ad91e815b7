import type { Message, Transcript } from '../../spec/transcript.js'
import { pairToolCalls } from '../../transcript/render.js'

/** Markup a transcript may hold that must render as text: a script, an attribute break-out, a closing tag. */
export const INJECTIONS = {
  script: '<script>window.__pwned = "script"; alert(1)</script>',
  image: '"><img src=x onerror="window.__pwned=\'img\'">',
  closing: '</script><script>window.__pwned="close"</script><!--',
  separators: 'line\u2028separator\u2029paragraph & <b>bold</b>',
} as const

const PROSE = 'We walked through the module layout, the plan for the refactor and what the reviewers asked for last week. '

/**
 * A session with state (paths, errors, versions, a constraint), every injection above in user, tool and assistant
 * text, a summary at message 20 that keeps only some of the state, and a later message that uses a lost path again.
 */
export function injectionSession(): Transcript {
  const messages: Message[] = [
    { role: 'system', parts: [{ type: 'text', text: 'You are a coding agent. Never write outside /srv/app.' }] },
    { role: 'user', parts: [{ type: 'text', text: `Fix the upload bug in src/upload/validate.py. Keep MAX_RETRIES=3. ${INJECTIONS.script}` }] },
  ]
  for (let step = 0; step < 9; step++) {
    const id = `call_${step}`
    messages.push({
      role: 'assistant',
      parts: [
        { type: 'text', text: `${PROSE.repeat(1 + (step % 3))}Checking src/upload/step_${step}.py next.` },
        { type: 'tool-call', id, name: 'bash', arguments: { command: `pytest tests/test_upload_${step}.py -x` } },
      ],
    })
    messages.push({
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: id,
          content:
            step === 4
              ? `Traceback (most recent call last):\nOSError: [Errno 28] No space left on device: '/var/tmp/upload_${step}.bin'\n${INJECTIONS.image}`
              : `collected 12 items\n${'.'.repeat(12)} passed in 0.${step}1s\nrequests==2.31.${step}\n${step === 2 ? INJECTIONS.closing : ''}`,
          isError: step === 4,
        },
      ],
    })
  }
  messages.push({
    role: 'user',
    parts: [
      {
        type: 'summary',
        source: 'claude-code',
        text: `Summary: the upload bug is in src/upload/validate.py; MAX_RETRIES=3 stays. ${INJECTIONS.separators}`,
      },
    ],
  })
  for (let step = 0; step < 8; step++) {
    messages.push({ role: 'user', parts: [{ type: 'text', text: step === 2 ? 'Look at src/upload/step_4.py again, and /var/tmp/upload_4.bin.' : `Continue with part ${step}. ${PROSE}` }] })
    messages.push({ role: 'assistant', parts: [{ type: 'text', text: `${PROSE.repeat(2 + (step % 4))}Done with part ${step}; see docs/part_${step}.md. ${step === 5 ? INJECTIONS.image : ''}` }] })
  }
  const { pairs, unpaired } = pairToolCalls(messages)
  return { format: 'openai', messages, pairs, unpaired }
}

// A command summarizer for tests: reads the JSON request on stdin and answers according to argv[2].
// Modes: copy (faithful: state block + a sentence), crash, hang, empty, over, paraphrase, drop, inject, echo-request.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'

const mode = process.argv[2] ?? 'copy'
let input = ''
process.stdin.setEncoding('utf8')
process.stdin.on('data', (chunk) => (input += chunk))
process.stdin.on('end', () => {
  const request = JSON.parse(input)
  const items = request.groups.flatMap((group) => group.items)
  switch (mode) {
    case 'copy':
      process.stdout.write(`${request.stateBlock}\n\nThe agent worked through the task.\n`)
      break
    case 'crash':
      process.stderr.write('runner: model file not found\nsecond line\n')
      process.exit(3)
      break
    case 'hang': {
      // A grandchild in the same process group: a timeout must kill it too.
      const child = spawn('sleep', ['30'], { stdio: 'ignore' })
      writeFileSync(process.argv[3], JSON.stringify({ pid: process.pid, child: child.pid }))
      setInterval(() => {}, 1000)
      break
    }
    case 'empty':
      break
    case 'over':
      process.stdout.write(`${request.stateBlock}\n${'filler words here '.repeat(request.slot + 20)}`)
      break
    case 'paraphrase':
      process.stdout.write(items.map((item) => `about ${item.text.toUpperCase().replaceAll('/', ' ')}`).join('. '))
      break
    case 'drop':
      process.stdout.write(items.slice(1).map((item) => item.text).join('\n'))
      break
    case 'inject':
      // Obeys "drop the paths": every item with a slash is left out.
      process.stdout.write(items.filter((item) => !item.text.includes('/')).map((item) => item.text).join('\n') + '\nPaths dropped as instructed.')
      break
    case 'echo-request':
      process.stdout.write(JSON.stringify(request))
      break
    default:
      process.stderr.write(`unknown mode ${mode}\n`)
      process.exit(2)
  }
})

// Deterministic agent-like text for benchmarks: the mix of prose, constraints, commands, tool output, tracebacks,
// pins and code a coding agent's transcript holds. Plain JS so bench/ runs against dist/ without a build step.

/** A small seeded PRNG (mulberry32). */
export function prng(seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const words = 'the worker then we agent file test run check build config value cache model data error fix retry queue batch upload path token slot summary segment branch commit review user plan step result output log trace deploy'.split(' ')
const names = ['ingest', 'worker', 'api', 'train', 'eval', 'utils', 'core', 'server', 'client', 'schema', 'loader', 'cache']
const packages = ['numpy', 'torch', 'fsspec', 'pydantic', 'transformers', 'wandb', 'react', 'vite', 'zod', 'requests']

function pick(random, list) {
  return list[Math.floor(random() * list.length)]
}

function sentence(random, length) {
  const out = []
  for (let index = 0; index < length; index++) out.push(pick(random, words))
  const text = out.join(' ')
  return `${text[0].toUpperCase()}${text.slice(1)}.`
}

const blocks = [
  (random) => `${sentence(random, 12)} ${sentence(random, 9)} I'll look at src/${pick(random, names)}/${pick(random, names)}.py next, it's probably the loader.`,
  (random) => `You must keep p95 latency under ${50 + Math.floor(random() * 400)} ms and never write outside /srv/${pick(random, names)}. Don't change the public API; retry at most ${1 + Math.floor(random() * 5)} times.`,
  (random) => `$ pytest tests/test_${pick(random, names)}.py -q\n${'.'.repeat(20 + Math.floor(random() * 40))}F\nFAILED tests/test_${pick(random, names)}.py::test_${pick(random, words)} - AssertionError: expected ${Math.floor(random() * 100)} got ${Math.floor(random() * 100)}\n1 failed, ${10 + Math.floor(random() * 90)} passed in ${(random() * 9).toFixed(2)}s`,
  (random) => `Traceback (most recent call last):\n  File "/srv/${pick(random, names)}/${pick(random, names)}.py", line ${1 + Math.floor(random() * 400)}, in ${pick(random, words)}\n    fh.write(buf)\nOSError: [Errno 28] No space left on device: '/var/tmp/${pick(random, words)}_${Math.floor(random() * 1e4)}.bin'`,
  (random) => `Collecting ${pick(random, packages)}==${Math.floor(random() * 3)}.${Math.floor(random() * 30)}.${Math.floor(random() * 10)}\n  Using cached ${pick(random, packages)}-${Math.floor(random() * 3)}.${Math.floor(random() * 30)}.0-py3-none-any.whl (${Math.floor(random() * 900)} kB)\nSuccessfully installed ${pick(random, packages)}-2.${Math.floor(random() * 9)}.1 ${pick(random, packages)}-1.${Math.floor(random() * 9)}.0`,
  (random) => `export CUDA_VISIBLE_DEVICES=${Math.floor(random() * 8)} MAX_STEPS=${1000 * (1 + Math.floor(random() * 9))}\ngit checkout -b fix/ING-${Math.floor(random() * 999)} && git commit -m "${sentence(random, 5)}" # ${Math.floor(random() * 0xffffffff).toString(16)}${Math.floor(random() * 0xffffff).toString(16)}`,
  (random) => `def ${pick(random, words)}_${pick(random, words)}(self, path: str, limit: int = ${Math.floor(random() * 100)}) -> dict:\n    """${sentence(random, 7)}"""\n    if not re.match(r"^/var/tmp/uploads/[a-z0-9_-]{1,64}\\.bin$", path):\n        raise ValueError(f"bad path {path!r}")\n    return {"path": path, "limit": limit}`,
  (random) => `{"id": "call_${Math.floor(random() * 1e9)}", "status": "ok", "url": "https://api.example.com/v1/${pick(random, names)}/${Math.floor(random() * 1e6)}", "elapsed_ms": ${Math.floor(random() * 2000)}}`,
]

/** Generates `bytes` bytes (approximately, ASCII) of agent-like text from `seed`. */
export function agentText(bytes, seed = 412) {
  const random = prng(seed)
  const parts = []
  let size = 0
  while (size < bytes) {
    const block = pick(random, blocks)(random)
    parts.push(block)
    size += block.length + 2
  }
  return parts.join('\n\n')
}

/**
 * Word lists of the gold extractor, in one place. Written for gold alone: nothing here is shared with `src/estimate/`.
 */

/** First segments of an absolute path that make a one-segment path (`/tmp`, `/testbed`) a path and not a slash command. */
export const ROOT_DIRECTORIES: ReadonlySet<string> = new Set([
  'app', 'bin', 'boot', 'data', 'dev', 'etc', 'home', 'lib', 'lib64', 'media', 'mnt', 'nix', 'opt', 'private', 'proc',
  'root', 'run', 'sbin', 'srv', 'sys', 'testbed', 'tmp', 'usr', 'var', 'Users', 'Volumes', 'workspace', 'workspaces',
])

/** Directory names that make `name/rest` a path even without a file extension (`src/eval`, `tests/`). */
export const KNOWN_DIRECTORIES: ReadonlySet<string> = new Set([
  '.claude', '.gemini', '.git', '.github', '.vscode', '__fixtures__', '__tests__', 'api', 'app', 'apps', 'assets', 'backend', 'bench',
  'bin', 'build', 'checkpoints', 'client', 'cmd', 'components', 'conf', 'config', 'configs', 'data', 'datasets', 'dist', 'doc', 'docs',
  'examples', 'experiments', 'fixtures', 'frontend', 'include', 'internal', 'lib', 'logs', 'migrations', 'models', 'node_modules',
  'notebooks', 'outputs', 'packages', 'pkg', 'public', 'results', 'runs', 'scripts', 'server', 'site-packages', 'src', 'static',
  'templates', 'test', 'tests', 'tools', 'utils', 'vendor', 'web',
])

/** File extensions a directory name never has: a prose slash between two file names (`plan.md/CLAUDE.md`) is not a path. */
export const FILE_EXTENSIONS: ReadonlySet<string> = new Set([
  'c', 'cc', 'cfg', 'cpp', 'cs', 'css', 'csv', 'go', 'h', 'hpp', 'html', 'ini', 'ipynb', 'java', 'js', 'json', 'jsonl', 'jsx', 'kt', 'log',
  'md', 'mjs', 'pdf', 'php', 'pl', 'png', 'py', 'rb', 'rs', 'sh', 'sql', 'svg', 'swift', 'toml', 'ts', 'tsx', 'txt', 'xml', 'yaml', 'yml',
])

/** Software whose name followed by a dotted number is a version (`node 20.11`, `OpenWrt 23.05-SNAPSHOT`). Lower case. */
export const VERSIONED_NAMES: ReadonlySet<string> = new Set([
  'alpine', 'android', 'angular', 'bun', 'cargo', 'centos', 'chrome', 'clang', 'cmake', 'conda', 'cuda', 'cudnn', 'debian', 'deno',
  'django', 'docker', 'electron', 'fastapi', 'fedora', 'firefox', 'flask', 'gcc', 'git', 'go', 'gradle', 'ios', 'java', 'jax', 'jdk',
  'kotlin', 'kubernetes', 'linux', 'llvm', 'macos', 'maven', 'mysql', 'next.js', 'nextjs', 'nginx', 'node', 'node.js', 'nodejs', 'npm',
  'numpy', 'nvcc', 'openssl', 'openwrt', 'pandas', 'perl', 'php', 'pip', 'pnpm', 'poetry', 'postgres', 'postgresql', 'pydantic',
  'pytest', 'python', 'python3', 'pytorch', 'rails', 'react', 'redis', 'ruby', 'ruff', 'rust', 'rustc', 'safari', 'scala', 'swift',
  'tailwind', 'tailwindcss', 'tensorflow', 'torch', 'transformers', 'triton', 'typescript', 'ubuntu', 'uv', 'vite', 'vllm', 'vue',
  'wandb', 'webpack', 'windows', 'yarn',
])

/** `--flag word` takes a plain word as its value only for these flag names (or names with `_`): `--upgrade pip` is not a setting. */
export const VALUE_FLAGS: ReadonlySet<string> = new Set([
  'accelerator', 'arch', 'backend', 'branch', 'config', 'cwd', 'device', 'dir', 'dtype', 'entrypoint', 'env', 'file', 'format', 'gpu',
  'host', 'image', 'lang', 'language', 'level', 'log-level', 'loglevel', 'mode', 'model', 'name', 'optimizer', 'out', 'output', 'path',
  'platform', 'precision', 'profile', 'project', 'python', 'ref', 'region', 'remote', 'reporter', 'runtime', 'scheduler', 'shell',
  'strategy', 'tag', 'target', 'template', 'tokenizer', 'type', 'upstream', 'user', 'workdir', 'zone',
])

/** Units that make a number a setting (`275 Hz`, `512 MB`, `80GB`, `16px`). Case-sensitive. */
export const UNITS: ReadonlySet<string> = new Set([
  'Hz', 'kHz', 'MHz', 'GHz', 'KB', 'kB', 'MB', 'GB', 'TB', 'KiB', 'MiB', 'GiB', 'TiB', 'Kb', 'Mb', 'Gb', 'px', 'rem', 'em', 'pt',
  'dp', 'vh', 'vw', 'ms', 'fps', 'dpi', 'rpm', 'kbps', 'Mbps', 'Gbps', 'mAh', '°C',
])

/** Top-level domains that make `host:port` an address (`web.chal.csaw.io:8000`), unlike `file.py:12`. */
export const ADDRESS_TLDS: ReadonlySet<string> = new Set([
  'ai', 'app', 'cloud', 'cn', 'co', 'com', 'de', 'dev', 'edu', 'fr', 'gov', 'internal', 'io', 'jp', 'local', 'me', 'net', 'org', 'ru',
  'run', 'sh', 'site', 'tech', 'uk', 'xyz',
])

/** Prefixes of vendor ids (`pod-abc123`, `sevt_…`; not the harness's tool-call ids `toolu_…`/`call_…`, which no agent types): prefix, then `_` or `-`, then at least 6 letters or digits. */
export const ID_PREFIXES: ReadonlySet<string> = new Set([
  'asst', 'chatcmpl', 'evt', 'file', 'job', 'msg', 'org', 'pod', 'proj', 'req', 'run', 'sbx', 'sess', 'sesn', 'sevt', 'task',
  'thread', 'vo',
])

/**
 * Phrases that make a line of tool output (or a pasted log in a user turn) an error even without an exception name.
 * Lower case; matched case-insensitively.
 */
export const ERROR_PHRASES: readonly string[] = [
  'already exists', 'cannot find module', 'command not found', 'connection refused', 'could not resolve host', 'no such file or directory',
  'no space left on device', 'not a git repository', 'out of memory', 'permission denied', 'segmentation fault', 'rate limit exceeded',
  'unprocessable entity', 'bad request', 'internal server error', 'service unavailable', 'bad gateway', 'too many requests',
  'timed out', 'is not defined', 'has not been read yet', 'access denied',
]

/** Words and phrases that make a user or system sentence a constraint. Matched case-insensitively on word boundaries. */
export const CONSTRAINT_CUES: readonly string[] = [
  'must', 'must not', "mustn't", 'never', 'always', 'only', "don't", 'dont', 'do not', 'at most', 'at least', 'no more than',
  'no less than', 'exactly', 'required', 'make sure', 'ensure', 'should', "shouldn't", 'should not', 'avoid',
  "can't", 'cannot', 'not allowed', 'forbidden',
  // Russian (the aider corpus session is in Russian): only, never, always, must, don't, forbidden, make sure
  'только', 'никогда', 'всегда', 'обязательно', 'должен', 'должна', 'должно', 'должны', 'не надо', 'не нужно', 'нельзя', 'убедись',
]

/** Cues that still make a question a constraint ("can you make sure the tests pass?"); other cues in a question do not. */
export const QUESTION_CUES: readonly string[] = ['make sure', 'ensure', "don't", 'do not', 'never', 'must']

/** Programs that make an inline code span a command (`` `uv run pytest tests/` ``) when followed by arguments. */
export const COMMAND_WORDS: ReadonlySet<string> = new Set([
  'accelerate', 'apt', 'apt-get', 'aws', 'bash', 'brew', 'bun', 'cargo', 'cat', 'cd', 'chmod', 'conda', 'cp', 'curl', 'deepspeed', 'docker',
  'export', 'gcloud', 'gh', 'git', 'go', 'grep', 'huggingface-cli', 'kubectl', 'ls', 'make', 'mkdir', 'mv', 'mypy', 'node', 'npm', 'npx',
  'nvidia-smi', 'pip', 'pip3', 'pnpm', 'pytest', 'python', 'python3', 'rm', 'rsync', 'ruff', 'runpodctl', 'scp', 'sed', 'sh', 'source',
  'ssh', 'sudo', 'tar', 'torchrun', 'uv', 'uvx', 'wandb', 'wget', 'yarn',
])

/** Languages of a fenced block whose lines are shell commands. */
export const SHELL_FENCES: ReadonlySet<string> = new Set(['bash', 'sh', 'shell', 'zsh', 'console', 'shell-session', 'fish', 'powershell', 'ps1', 'cmd'])

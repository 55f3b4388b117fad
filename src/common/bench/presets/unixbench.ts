import * as z from 'zod';
import type { LocalUpload, Metric, ParsedOutput, PresetDef } from '../types.js';
import { marks, stripMarks, wrapScript } from '../script.js';
import { shQuote } from '../../shell.js';

// UnixBench (byte-unixbench v6.0.0): installs gcc/make/perl after confirmation, gets the source
// (git, tarball URL or a tarball the app uploads), builds and runs ./Run. Runs are long (30–60
// min), so — like every TagSSH run — it runs detached (setsid, output file) and survives a
// dropped connection. The parser reads each pass ("Benchmark Run: …"): every test result, the
// index table and the System Benchmarks Index Score; a pass with a header and no score (the
// 5.1.3 >16-CPU case) is a failed pass, not a zero.

// A URL never starts with "-": git, curl and wget would take it for an option (`-u@x:y` is
// git's --upload-pack). The scripts also put `--` before every URL they pass on.
const url = (help: string, def: string) =>
  z
    .string()
    .default(def)
    .describe(help)
    .refine((u) => !u.startsWith('-'), 'must not start with "-"')
    .refine((u) => /^(https?|git|ssh):\/\/[^\s'"`$\\]+$/.test(u) || /^\w[\w.-]*@[\w.-]+:[^\s'"`$\\]+$/.test(u), 'an http(s)/git URL');

const UNIXBENCH_TARBALL_NAME = 'unixbench-upload.tar.gz';

/**
 * Largest tarball TagSSH uploads (byte-unixbench's source is well under 1 MiB). The app sends the
 * bytes over its message channel, so this also keeps an upload inside one message.
 */
export const UNIXBENCH_MAX_TARBALL_BYTES = 1024 * 1024;

/**
 * The tarball checks shared by the CLI (a path) and the app (bytes the person picked). Without
 * `head`, only the size is checked (a file too large is refused before it is read).
 */
export function tarballProblem(size: number, head?: Uint8Array): string | undefined {
  if (size === 0) return 'is empty';
  if (size > UNIXBENCH_MAX_TARBALL_BYTES) return `is ${Math.ceil(size / 1024)} KiB; the limit is ${UNIXBENCH_MAX_TARBALL_BYTES / 1024} KiB`;
  // gzip's magic number: a .tar.gz is one; a private key, a device or a text file is not.
  if (head && (head[0] !== 0x1f || head[1] !== 0x8b)) return 'is not a gzip-compressed tarball (.tar.gz)';
  return undefined;
}

/** The tarball source=upload sends: the file localTarball names (the CLI) or the one picked in the form (the app). */
export function unixbenchUpload(path: string): LocalUpload {
  return {
    param: 'localTarball',
    path,
    remoteName: UNIXBENCH_TARBALL_NAME,
    maxBytes: UNIXBENCH_MAX_TARBALL_BYTES,
    problem: tarballProblem,
    words: {
      noPath: { message: 'source=upload needs localTarball (a .tar.gz on this computer).', hint: 'Pass --param localTarball=PATH.' },
      notPicked: 'UnixBench with source "upload" needs the tarball file chosen in the form.',
      refusedHint: 'Give a byte-unixbench .tar.gz (source=upload), or use source=git or source=tarball.',
      unreadableHint: 'Give the path of a byte-unixbench .tar.gz.',
    },
  };
}

const params = z.object({
  source: z
    .enum(['git', 'tarball', 'upload'])
    .default('git')
    .describe('Where the source comes from: git clone, a tarball URL, or a local tarball uploaded by TagSSH.'),
  gitUrl: url('Git repository (source=git).', 'https://github.com/kdlucas/byte-unixbench.git'),
  gitRef: z
    .string()
    .default('v6.0.0')
    .describe('Tag or branch to check out (source=git).')
    .refine((r) => /^[\w][\w./-]{0,99}$/.test(r), 'a tag or branch name'),
  tarballUrl: url('Tarball URL (source=tarball).', 'https://github.com/kdlucas/byte-unixbench/archive/refs/tags/v6.0.0.tar.gz'),
  localTarball: z
    .string()
    .max(4096)
    .default('')
    .describe('Local .tar.gz to upload (source=upload): a regular file of at most 1 MiB on this computer.')
    // eslint-disable-next-line no-control-regex
    .refine((f) => !/[\x00-\x1f\x7f]/.test(f), 'must not contain control characters'),
  install: z.boolean().default(true).describe('Install gcc, make and perl with the distro package manager when missing (sudo).'),
  iterations: z.coerce.number().int().min(1).max(10).default(1).describe('Iterations per test (./Run -i).'),
  copies: z
    .string()
    .default('1,auto')
    .describe('Parallel copies per pass (./Run -c), comma-separated; "auto" = number of CPUs.')
    .refine((c) => /^(\d{1,4}|auto)(,(\d{1,4}|auto)){0,7}$/.test(c), 'like 1,auto or 1,4'),
  tests: z
    .string()
    .default('')
    .describe('Space-separated test names (empty = the standard index set), e.g. "dhry2reg whetstone-double".')
    .refine((t) => /^[\w. -]*$/.test(t), 'test names are letters, digits, dots and dashes'),
});
type Params = z.infer<typeof params>;

function body(p: Params): string {
  const install = p.install
    ? `phase install
need=
for t in gcc make perl; do command -v "$t" >/dev/null 2>&1 || need="$need $t"; done
perl -MTime::HiRes -e 1 >/dev/null 2>&1 || need="$need perl-Time-HiRes"
if [ -n "$need" ]; then
  if [ "$HAVE_ROOT" != 1 ]; then echo "missing:$need and no root or passwordless sudo to install them" >&2; exit 13; fi
  note "installing:$need"
  if command -v apt-get >/dev/null 2>&1; then $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc make perl
  elif command -v dnf >/dev/null 2>&1; then $SUDO dnf install -y -q gcc make perl perl-Time-HiRes
  elif command -v yum >/dev/null 2>&1; then $SUDO yum install -y -q gcc make perl perl-Time-HiRes
  elif command -v zypper >/dev/null 2>&1; then $SUDO zypper -n install gcc make perl
  elif command -v apk >/dev/null 2>&1; then $SUDO apk add -q build-base perl
  else echo "no supported package manager found; install gcc make perl by hand" >&2; exit 1; fi || { echo "package installation failed" >&2; exit 1; }
fi`
    : '';
  const fetch = {
    git: `command -v git >/dev/null 2>&1 || { echo "git is not installed (or use source=tarball)" >&2; exit 127; }
git clone -q --depth 1 --branch ${shQuote(p.gitRef)} -- ${shQuote(p.gitUrl)} src || { echo "git clone failed" >&2; exit 1; }`,
    tarball: `mkdir src && { if command -v curl >/dev/null 2>&1; then curl -fsSL -o ub.tar.gz -- ${shQuote(p.tarballUrl)}; else wget -q -O ub.tar.gz -- ${shQuote(p.tarballUrl)}; fi; } || { echo "download failed" >&2; exit 1; }
tar -xzf ub.tar.gz -C src --strip-components=1 || exit 1`,
    upload: `[ -f "$RUN_DIR/${UNIXBENCH_TARBALL_NAME}" ] || { echo "the uploaded tarball is missing" >&2; exit 1; }
mkdir src && tar -xzf "$RUN_DIR/${UNIXBENCH_TARBALL_NAME}" -C src --strip-components=1 || exit 1`,
  }[p.source];
  const copies = p.copies
    .split(',')
    .map((c) => (c === 'auto' ? '-c "$NCPU"' : `-c ${Number(c)}`))
    .join(' ');
  const tests = p.tests.trim() ? ' ' + p.tests.trim().split(/\s+/).map(shQuote).join(' ') : '';
  return `${install}
phase fetch
${fetch}
if [ -d src/UnixBench ]; then cd src/UnixBench; else cd src; fi || exit 1
[ -x ./Run ] || { echo "no ./Run in the source tree" >&2; exit 1; }
phase build
if [ -f Makefile ]; then make -s all || { echo "build failed" >&2; exit 1; }; fi
NCPU=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
phase run
./Run -i ${p.iterations} ${copies}${tests}
rc=$?
phase done
exit $rc`;
}

interface UnixbenchPass {
  copies: number;
  cpus: number;
  tests: { name: string; value: number; unit: string; seconds: number; samples: number }[];
  index: { name: string; baseline: number; result: number; index: number }[];
  score?: number;
  partial: boolean;
}

export function parseUnixbenchPasses(text: string): { version?: string; passes: UnixbenchPass[] } {
  const clean = stripMarks(text);
  // Run prints progress first and the report after a line of '='; the report starts at the banner.
  const version = /BYTE UNIX Benchmarks \(Version ([\d.]+)\)/.exec(clean)?.[1];
  const blocks = clean.split(/^Benchmark Run: .*$/m).slice(1);
  const passes: UnixbenchPass[] = [];
  for (const block of blocks) {
    const hdr = /^(\d+) CPUs? in system; running (\d+) parallel cop(?:y|ies) of tests/m.exec(block);
    const pass: UnixbenchPass = { copies: Number(hdr?.[2] ?? 1), cpus: Number(hdr?.[1] ?? 0), tests: [], index: [], partial: false };
    let inIndex = false;
    for (const line of block.split('\n')) {
      if (/^System Benchmarks (Index Values|Partial Index)/.test(line)) {
        inIndex = true;
        pass.partial = /Partial/.test(line);
        continue;
      }
      const score = /^System Benchmarks Index Score(?: \(Partial Only\))?\s+([\d.]+)\s*$/.exec(line);
      if (score) {
        pass.score = Number(score[1]);
        inIndex = false;
        continue;
      }
      if (/^-{20,}|^={20,}/.test(line)) break; // next report section
      if (inIndex) {
        const m = /^(.+?)\s{2,}([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$/.exec(line);
        if (m) pass.index.push({ name: m[1]!.trim(), baseline: Number(m[2]), result: Number(m[3]), index: Number(m[4]) });
        continue;
      }
      const t = /^(.+?)\s{2,}([\d.]+) (\S+)\s+\(([\d.]+) s, (\d+) samples?\)\s*$/.exec(line);
      if (t) pass.tests.push({ name: t[1]!.trim(), value: Number(t[2]), unit: t[3]!, seconds: Number(t[4]), samples: Number(t[5]) });
    }
    passes.push(pass);
  }
  return { ...(version ? { version } : {}), passes };
}

/** The standard index set: 12 tests per pass. ./Run prints "N x Test name  1 2 3 …" as each starts. */
const INDEX_TESTS = 12;

export function unixbenchProgress(copies: string, tests: string, stdout: string): number | undefined {
  const passes = copies.split(',').length;
  const perPass = tests.trim() ? tests.trim().split(/\s+/).length : INDEX_TESTS;
  const started = stdout.match(/^\d+ x \S.*$/gm)?.length ?? 0;
  if (!started) return undefined;
  return Math.min(0.99, (started - 0.5) / (passes * perPass));
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

export function parseUnixbench(stdout: string, stderr = ''): ParsedOutput {
  const notes = marks(stdout, 'note');
  const { version, passes } = parseUnixbenchPasses(stdout);
  const facts: Record<string, string> = {};
  const metrics: Metric[] = [];
  const failed: string[] = [];
  const used = new Set<string>();
  for (const pass of passes) {
    let key = pass.copies === 1 ? 'single' : 'multi';
    if (used.has(key)) key = `c${pass.copies}`;
    used.add(key);
    const label = `${pass.copies} cop${pass.copies === 1 ? 'y' : 'ies'}`;
    facts[`${key}_copies`] = String(pass.copies);
    if (pass.score === undefined) {
      failed.push(
        `the ${label} pass printed its header but no index score (failed pass${pass.copies > 16 ? '; UnixBench before 6.0 fails above 16 copies' : ''})`,
      );
      facts[`${key}_status`] = 'failed';
    } else {
      facts[`${key}_status`] = pass.partial ? 'partial index' : 'ok';
      metrics.push({
        key: `${key}.score`,
        label: `Index score (${label})${pass.partial ? ' partial' : ''}`,
        value: pass.score,
        unit: 'index',
        better: 'higher',
      });
    }
    for (const t of pass.tests) metrics.push({ key: `${key}.${slug(t.name)}`, label: `${t.name} (${label})`, value: t.value, unit: t.unit, better: 'higher' });
    for (const i of pass.index)
      metrics.push({ key: `${key}.${slug(i.name)}.index`, label: `${i.name} index (${label})`, value: i.index, unit: 'index', better: 'higher' });
  }
  if (passes[0]?.cpus) facts.cpus = String(passes[0].cpus);
  const base = { facts, notes: [...notes, ...failed], ...(version ? { toolVersion: `UnixBench ${version}` } : {}) };
  if (passes.length === 0)
    return { ...base, ok: false, metrics, error: stderr.trim().split('\n').filter(Boolean).pop() || 'no UnixBench report in the output' };
  if (failed.length) return { ...base, ok: false, metrics, error: failed.join('; ') };
  return { ...base, ok: true, metrics };
}

export const unixbench: PresetDef<typeof params> = {
  id: 'unixbench',
  title: 'UnixBench',
  description: 'byte-unixbench: install build tools, fetch, build and run ./Run (single and N copies); index score per pass. Takes 30–60 minutes.',
  params,
  long: true,
  confirmations: (p) => [
    ...(p.install ? [{ kind: 'install' as const, say: { id: 'installBuildTools' as const } }] : []),
    { kind: 'write', say: { id: 'buildUnixbench' } },
    ...(p.source === 'upload' ? [{ kind: 'upload' as const, say: { id: 'uploadFile' as const, values: { file: p.localTarball || '(no file chosen)' } } }] : []),
  ],
  script: (p, ctx) => wrapScript(body(p), { runDir: ctx.runDir, title: 'UnixBench' }),
  progress: (p, stdout) => unixbenchProgress(p.copies, p.tests, stdout),
  estimateSeconds: (p) => 1800 * p.copies.split(',').length * p.iterations * 0.5,
  upload: (p) => (p.source === 'upload' ? unixbenchUpload(p.localTarball) : undefined),
  parse: (stdout, stderr) => parseUnixbench(stdout, stderr),
};

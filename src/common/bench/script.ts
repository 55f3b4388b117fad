import * as z from 'zod';
import { shQuote } from '../shell.js';

// The prelude/epilogue every preset script shares. Only values passed through shQuote() (or
// numbers validated by zod) are interpolated; everything else is fixed text.
//  - LC_ALL=C so tools print numbers the parsers expect (dd, ls, date).
//  - A scratch directory per run, removed by an EXIT trap (also on TERM/INT/HUP).
//  - `sudo -n true` detection: root → no sudo, passwordless sudo → "sudo -n", else a note.
//  - The exit status is written to $RUN_DIR/exit so a re-attached runner can read it.
// Lines starting with MARK are for the parsers and the progress view, never tool output.

export const MARK = '@@tagssh:';

/** Host facts every script prints first, one `@@tagssh:meta key=value` line each (read by meta.ts). */
const META_PRELUDE = `tagssh_meta() { printf '${MARK}meta %s=%s\\n' "$1" "$(printf '%s' "$2" | tr -d '\\n' | cut -c1-200)"; }
tagssh_meta kernel "$(uname -r 2>/dev/null)"
tagssh_meta cpu_model "$( (lscpu 2>/dev/null; cat /proc/cpuinfo 2>/dev/null) | awk -F': *' '/^(Model name|model name)/ {print $2; exit}')"
tagssh_meta vcpus "$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"
tagssh_meta cpufreq_governor "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo none)"
tagssh_meta cpufreq_driver "$(cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_driver 2>/dev/null || echo none)"`;

interface WrapOptions {
  runDir: string;
  /** Shell expression (already quoted) for the scratch dir; default "$RUN_DIR/scratch". */
  scratch?: string;
  /** Extra cleanup run before the scratch dir is removed (fixed text or quoted values). */
  cleanup?: string;
  title: string;
  /** Variable definitions emitted before SCRATCH (e.g. DIR=…). */
  vars?: string;
  /** Checks run before the scratch dir is created (e.g. spaceCheck). */
  precheck?: string;
}

export function wrapScript(body: string, o: WrapOptions): string {
  return `#!/bin/sh
# TagSSH benchmark: ${o.title.replace(/[^\w .,()/-]/g, '')}
# Generated script; every parameter below is validated and shell-quoted.
set -u
LC_ALL=C; export LC_ALL; LANG=C; export LANG
RUN_DIR=${shQuote(o.runDir)}
${o.vars ?? ''}
SCRATCH=${o.scratch ?? '"$RUN_DIR/scratch"'}
note() { printf '${MARK}note %s\\n' "$*"; }
phase() { printf '${MARK}phase %s\\n' "$*"; }
tagssh_cleanup() {
  cd / 2>/dev/null
${(o.cleanup ?? ':').replace(/^/gm, '  ')}
  rm -rf -- "$SCRATCH"
}
trap 'rc=$?; trap - EXIT INT TERM HUP; tagssh_cleanup; printf "%s\\n" "$rc" > "$RUN_DIR/exit"; exit $rc' EXIT
trap 'exit 143' TERM; trap 'exit 130' INT; trap 'exit 129' HUP
if [ "$(id -u)" = 0 ]; then SUDO=; HAVE_ROOT=1
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO='sudo -n'; HAVE_ROOT=1
else SUDO=; HAVE_ROOT=0; fi
printf '${MARK}root %s\\n' "$HAVE_ROOT"
${META_PRELUDE}
${o.precheck ?? ''}
mkdir -p -- "$SCRATCH" || { echo "cannot create scratch directory $SCRATCH" >&2; exit 1; }
cd -- "$SCRATCH" || exit 1
now_ns() { date +%s%N; }
${body.trim()}
`;
}

/** Lines without the TagSSH markers (what the tool itself printed). */
export function stripMarks(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.startsWith(MARK))
    .join('\n');
}

/** All marker lines of one kind: `@@tagssh:note xyz` → ['xyz']. */
export function marks(text: string, kind: string): string[] {
  const prefix = `${MARK}${kind} `;
  const bare = `${MARK}${kind}`;
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith(prefix)) out.push(line.slice(prefix.length).trimEnd());
    else if (line.trimEnd() === bare) out.push('');
  }
  return out;
}

/** Text between `@@tagssh:begin NAME` and `@@tagssh:end NAME`, or undefined. */
export function section(text: string, name: string): string | undefined {
  const begin = text.indexOf(`${MARK}begin ${name}\n`);
  if (begin < 0) return undefined;
  const start = begin + `${MARK}begin ${name}\n`.length;
  const end = text.indexOf(`${MARK}end ${name}`, start);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Marker "key=value …" fields: `@@tagssh:listing cold ns=1 entries=2` → {ns:'1',entries:'2'}. */
export function fields(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of line.matchAll(/(\w+)=(\S*)/g)) out[m[1]!] = m[2]!;
  return out;
}

// ---- shared parameter validators -------------------------------------------------------------

// Where a benchmark may write. /proc and /sys are the kernel's; /dev holds device nodes (a write
// there is a write to a disk) and /run the system's sockets and pid files — except their tmpfs
// directories, /dev/shm and /run/user/UID, the RAM baseline people compare EBS and EFS with. A
// DIR that turns out to be a device node at run time (a symlink) is refused by spaceCheck.
const KERNEL_ROOTS = ['/proc', '/sys'];
const TMPFS_ONLY_ROOTS = ['/dev', '/run'];
const TMPFS_DIRS = [/^\/dev\/shm(\/|$)/, /^\/run\/user\/\d+(\/|$)/, /^\/run\/shm(\/|$)/];
const under = (d: string, r: string) => d === r || d.startsWith(`${r}/`);

/** True for a directory a benchmark may write in (absolute, no ".."; not /proc, /sys or a device tree, tmpfs excepted). */
export function isBenchDir(d: string): boolean {
  const path = d.replace(/\/+/g, '/');
  if (!path.startsWith('/') || path.split('/').includes('..')) return false;
  if (KERNEL_ROOTS.some((r) => under(path, r))) return false;
  if (TMPFS_ONLY_ROOTS.some((r) => under(path, r))) return TMPFS_DIRS.some((re) => re.test(path));
  return true;
}

/** Says the rule of isBenchDir() in a message. */
export const BENCH_DIR_RULE = 'not /proc, /sys or a device (under /dev and /run only the tmpfs /dev/shm and /run/user/UID), no ".."';

/** A directory the user picks for file-based tests: absolute, printable, not a device tree. */
export const dirParam = (help: string, def = '/tmp') =>
  z
    .string()
    .min(1)
    .max(1024)
    .default(def)
    .describe(help)
    .refine((d) => d.startsWith('/'), 'must be an absolute path')
    // eslint-disable-next-line no-control-regex
    .refine((d) => !/[\x00-\x1f\x7f]/.test(d), 'must not contain control characters')
    .refine((d) => !d.split('/').includes('..'), 'must not contain ".."')
    .refine((d) => isBenchDir(d), 'raw devices, /proc and /sys are refused; under /dev and /run only /dev/shm and /run/user/UID (tmpfs)');

/** Sizes like 4k, 1M, 2G, 512 (bytes); used by fio/dd. */
export const sizeParam = (help: string, def: string) =>
  z
    .string()
    .default(def)
    .describe(help)
    .refine((s) => /^[1-9]\d{0,9}[kKmMgG]?$/.test(s), 'a size like 4k, 1M or 2G');

export function sizeToBytes(s: string): number {
  const m = /^(\d+)([kKmMgG]?)$/.exec(s);
  if (!m) throw new Error(`bad size ${s}`);
  const mult = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2]!.toLowerCase()] ?? 1;
  return Number(m[1]) * mult;
}

/** Shell that refuses a block/char device and checks free space (KiB) at $1 before writing. */
export function spaceCheck(dirVar: string, neededKiB: number): string {
  const need = Math.ceil(neededKiB);
  return `if [ -b ${dirVar} ] || [ -c ${dirVar} ]; then echo "refusing raw device ${'$'}{DIR}" >&2; exit 2; fi
if [ ! -d ${dirVar} ]; then echo "directory ${'$'}{DIR} does not exist" >&2; exit 2; fi
avail_kb=$(df -Pk -- ${dirVar} | awk 'NR==2 {print $4}')
printf '${MARK}space avail_kb=%s need_kb=%s\\n' "$avail_kb" ${need}
if [ -n "$avail_kb" ] && [ "$avail_kb" -lt ${need} ]; then echo "not enough free space in ${'$'}{DIR}: $avail_kb KiB free, ${need} KiB needed" >&2; exit 28; fi`;
}

// Scratch dirs under a user-chosen DIR are named tagssh-scratch-<run>, never tagssh-<run>: with
// DIR=/tmp that would be the run directory itself (and cleaning it would delete the exit file).
/** Shell expression for the scratch dir under $DIR. */
export function dirScratch(runId: string): string {
  return `"$DIR"/${shQuote(`tagssh-scratch-${runId}`)}`;
}

/** Cleanup after a cancel for presets whose scratch dir lives under the user's DIR. */
export function dirScratchCleanup(dir: string, runId: string): string {
  return `rm -rf -- ${shQuote(`${dir.replace(/\/+$/, '')}/tagssh-scratch-${runId}`)}`;
}

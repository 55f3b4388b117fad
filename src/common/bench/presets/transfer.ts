import * as z from 'zod';
import type { ConfirmSay } from '../confirmWords.js';
import type { Metric, ParsedOutput, PresetDef } from '../types.js';
import { BENCH_DIR_RULE, fields, isBenchDir, marks, sizeParam, sizeToBytes, wrapScript } from '../script.js';
import { shQuote } from '../../shell.js';

// Copy or sync a file set between two directories on an instance, or between S3 and a directory,
// with a chosen method — the seeds' "rsync over s3fs vs aws s3 sync" and "cp vs parallel copies"
// comparisons. The file set is generated (count × size, in the run's scratch directory) or an
// existing directory or S3 prefix, read only. Only the copy is timed; then both sides are listed
// (count, bytes, MD5 per file; S3 ETags stand in for MD5 where they are one, i.e. not multipart)
// and compared. The copy lands in a fresh sub-directory or prefix of the destination, removed
// afterwards. Methods compare like any other results: run a matrix over `method`.

const S3_URI = /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/[^\s]*)?$/;

// eslint-disable-next-line no-control-regex
const printable = (s: string) => !/[\x00-\x1f\x7f]/.test(s);
const isS3 = (s: string) => s.startsWith('s3://');

/** A directory (absolute) or an S3 location (s3://bucket/prefix). */
const place = (help: string, def: string) =>
  z
    .string()
    .max(1024)
    .default(def)
    .describe(help)
    .refine(printable, 'must not contain control characters')
    .refine((s) => s === '' || (isS3(s) ? S3_URI.test(s) : isBenchDir(s)), `an absolute directory (${BENCH_DIR_RULE}) or s3://bucket/prefix`);

const TRANSFER_METHODS = ['rsync', 'cp', 'parallel', 's3-sync', 's3-cp'] as const;
const S3_METHODS: readonly string[] = ['s3-sync', 's3-cp'];

const params = z
  .object({
    method: z
      .enum(TRANSFER_METHODS)
      .default('rsync')
      .describe('rsync: rsync -a. cp: cp -a. parallel: cp by N workers (xargs -P). s3-sync: aws s3 sync. s3-cp: aws s3 cp --recursive.'),
    from: place('What to copy: an existing directory or s3://bucket/prefix (read only). Empty: a generated set of files.', ''),
    to: place('Where to copy to: a directory or s3://bucket/prefix. The copy goes in a fresh sub-directory (prefix) and is removed afterwards.', '/tmp').refine(
      (s) => s !== '',
      'a directory or s3://bucket/prefix',
    ),
    files: z.coerce.number().int().min(1).max(100_000).default(500).describe('Generated set: number of files.'),
    fileSize: sizeParam('Generated set: size of each file, e.g. 4k, 64k, 1M.', '64k'),
    workers: z.coerce.number().int().min(1).max(64).default(8).describe('parallel: copies at a time.'),
    endpoint: z
      .string()
      .max(256)
      .default('')
      .describe('S3 endpoint URL (aws --endpoint-url), for an S3-compatible service; empty: AWS.')
      .refine((s) => s === '' || /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?(\/[\w./-]*)?$/.test(s), 'an http(s) URL'),
    region: z
      .string()
      .max(32)
      .default('')
      .describe("AWS region for S3 (aws --region); empty: the instance's own configuration.")
      .refine((s) => s === '' || /^[a-z]{2}(-[a-z]+)+-\d$/.test(s), 'a region name such as ap-northeast-1'),
    profile: z
      .string()
      .max(64)
      .default('')
      .describe('AWS CLI profile on the instance (aws --profile); empty: the default (e.g. the instance role).')
      .refine((s) => s === '' || /^[\w.+-]+$/.test(s), 'letters, digits and . _ + - only'),
    credentialsFile: z
      .string()
      .max(1024)
      .default('')
      .describe('AWS credentials file on the instance (AWS_SHARED_CREDENTIALS_FILE); empty: the default. The path only: no secret goes into the script.')
      .refine((s) => s === '' || (s.startsWith('/') && printable(s)), 'an absolute path'),
    verify: z.boolean().default(true).describe('After the copy, compare both sides: file count, bytes and checksums.'),
  })
  .superRefine((p, ctx) => {
    const s3Sides = [p.from, p.to].filter(isS3).length;
    if (S3_METHODS.includes(p.method) && s3Sides !== 1)
      ctx.addIssue({ code: 'custom', path: ['method'], message: `${p.method} copies between S3 and a directory: make one of from/to an s3:// location` });
    if (!S3_METHODS.includes(p.method) && s3Sides > 0)
      ctx.addIssue({ code: 'custom', path: ['method'], message: `${p.method} copies between directories: for S3 use s3-sync or s3-cp` });
  });
type Params = z.infer<typeof params>;

/** The S3 side's options, for every aws command of the script (all values validated and quoted). */
function awsPrelude(p: Params): string {
  const opts = [
    ...(p.endpoint ? ['--endpoint-url', p.endpoint] : []),
    ...(p.region ? ['--region', p.region] : []),
    ...(p.profile ? ['--profile', p.profile] : []),
  ];
  // A non-interactive SSH session's PATH often lacks where the AWS CLI lives (pip --user, v2's installer).
  return `PATH="$PATH:$HOME/.local/bin:/usr/local/bin"; export PATH
${p.credentialsFile ? `AWS_SHARED_CREDENTIALS_FILE=${shQuote(p.credentialsFile)}; export AWS_SHARED_CREDENTIALS_FILE\n` : ''}awsx() { aws ${opts.map(shQuote).join(' ')} "$@"; }`;
}

/** Where the copy lands: a fresh sub-directory or prefix of `to`, named after the run. */
export function transferDestination(to: string, runId: string): string {
  return `${to.replace(/\/+$/, '')}/tagssh-scratch-${runId}`;
}

const COPY: Record<Params['method'], string> = {
  rsync: 'rsync -a -- "$SRC"/ "$DST"/',
  cp: 'cp -a -- "$SRC"/. "$DST"/',
  // Directories first, then the files by N workers, 64 a batch; --parents keeps the layout.
  parallel:
    '( cd -- "$SRC" && find . -mindepth 1 -type d -print0 | ( cd -- "$DST" && xargs -0 -r mkdir -p -- ) && find . -type f -print0 | xargs -0 -r -P "$W" -n 64 cp -p --parents -t "$DST" -- )',
  's3-sync': 'awsx s3 sync --only-show-errors "$SRC" "$DST"',
  's3-cp': 'awsx s3 cp --recursive --only-show-errors "$SRC" "$DST"',
};

// Manifests: one "path<TAB>bytes<TAB>checksum" line per file, paths relative to the side's root.
const MANIFESTS = `manifest_dir() {
  ( cd -- "$1" && { find . -type f -printf 'S\\t%P\\t%s\\n'; find . -type f -print0 | xargs -0 -r md5sum | sed 's#^\\([0-9a-f]*\\)  \\./#M\\t\\1\\t#'; } ) |
    awk -F'\\t' '$1 == "S" {size[$2] = $3} $1 == "M" {sum[$3] = $2} END {for (k in size) printf "%s\\t%s\\t%s\\n", k, size[k], sum[k]}'
}
manifest_s3() {
  loc=\${1#s3://}; bucket=\${loc%%/*}; prefix=\${loc#"$bucket"}; prefix=\${prefix#/}
  [ -n "$prefix" ] && prefix="\${prefix%/}/"
  awsx s3api list-objects-v2 --bucket "$bucket" --prefix "$prefix" --query 'Contents[].[Key,Size,ETag]' --output text |
    awk -F'\\t' -v p="$prefix" 'NF >= 3 {k = substr($1, length(p) + 1); e = $3; gsub(/"/, "", e); if (k != "") printf "%s\\t%s\\t%s\\n", k, $2, e}'
}
manifest() { case "$1" in s3://*) manifest_s3 "$1" ;; *) manifest_dir "$1" ;; esac; }`;

// mawk (Debian's default awk) has no {n} intervals: an MD5 is told by its length.
const COMPARE = `awk -F'\\t' 'function md5(s) { return length(s) == 32 && s !~ /[^0-9a-f]/ }
  FILENAME == ARGV[1] {ss[$1] = $2; sm[$1] = $3; nf++; nb += $2; next}
  {ds[$1] = $2; dm[$1] = $3; mf++; mb += $2}
  END {
    for (k in ss) {
      if (!(k in ds)) missing++
      else if (ss[k] != ds[k]) differ++
      else if (!md5(sm[k]) || !md5(dm[k])) unchecked++
      else if (sm[k] == dm[k]) same++
      else differ++
    }
    for (k in ds) if (!(k in ss)) extra++
    printf "@@tagssh:verify src_files=%d dst_files=%d src_bytes=%d dst_bytes=%d same=%d differ=%d missing=%d extra=%d unchecked=%d\\n", nf, mf, nb, mb, same, differ, missing, extra, unchecked
  }' "$SCRATCH/src.manifest" "$SCRATCH/dst.manifest"`;

function body(p: Params, runId: string): string {
  const s3 = S3_METHODS.includes(p.method);
  const dst = transferDestination(p.to, runId);
  const tool = s3 ? 'aws' : p.method === 'rsync' ? 'rsync' : 'cp';
  return `METHOD=${shQuote(p.method)}
FROM=${shQuote(p.from)}
DST=${shQuote(dst)}
W=${p.workers}
${s3 ? awsPrelude(p) : ''}
${MANIFESTS}
command -v ${tool} >/dev/null 2>&1 || { echo "${tool} is not installed on this host" >&2; exit 127; }
printf '@@tagssh:version %s\\n' "$(${tool === 'aws' ? 'aws --version 2>&1' : `${tool} --version 2>/dev/null | head -n 1`})"
phase prepare
if [ -z "$FROM" ]; then
  SRC="$SCRATCH/src"; mkdir -p -- "$SRC" || exit 1
  i=0; while [ "$i" -lt ${p.files} ]; do head -c ${sizeToBytes(p.fileSize)} /dev/urandom > "$SRC/f$i" || exit 1; i=$((i+1)); done
  printf '@@tagssh:source generated files=%s\\n' ${p.files}
else
  SRC=$FROM
  case "$SRC" in s3://*) ;; *) [ -d "$SRC" ] || { echo "directory $SRC does not exist" >&2; exit 2; } ;; esac
fi
case "$DST" in
  s3://*) ;;
  *) [ -d "$(dirname -- "$DST")" ] || { echo "directory $(dirname -- "$DST") does not exist" >&2; exit 2; }
     mkdir -- "$DST" || exit 1 ;;
esac
phase copy
t0=$(now_ns)
${COPY[p.method]}
rc=$?
t1=$(now_ns)
printf '@@tagssh:transfer rc=%s ns=%s\\n' "$rc" "$((t1 - t0))"
[ "$rc" = 0 ] || exit "$rc"
${
  p.verify
    ? `phase verify
manifest "$SRC" > "$SCRATCH/src.manifest" || { echo "could not list $SRC" >&2; exit 1; }
manifest "$DST" > "$SCRATCH/dst.manifest" || { echo "could not list $DST" >&2; exit 1; }
${COMPARE}`
    : `manifest "$SRC" | awk -F'\\t' '{n++; b += $2} END {printf "@@tagssh:verify src_files=%d src_bytes=%d skipped=1\\n", n, b}'`
}
phase done`;
}

/** Removes the copy (a directory, or an S3 prefix). */
function removeCopy(p: Params, runId: string): string {
  const dst = shQuote(transferDestination(p.to, runId));
  return isS3(p.to) ? `${awsPrelude(p)}\nawsx s3 rm --recursive --only-show-errors ${dst}/ || true` : `rm -rf -- ${dst}`;
}

export function parseTransfer(stdout: string, stderr = ''): ParsedOutput {
  const notes = marks(stdout, 'note');
  const facts: Record<string, string> = {};
  const metrics: Metric[] = [];
  const version = marks(stdout, 'version')[0];
  const t = marks(stdout, 'transfer').map(fields)[0];
  const v = marks(stdout, 'verify').map(fields)[0];
  const generated = marks(stdout, 'source').find((l) => l.startsWith('generated'));
  if (generated) facts.source = `generated, ${fields(generated).files} files`;
  const base = { facts, notes, ...(version ? { toolVersion: version } : {}) };
  if (!t) return { ...base, ok: false, metrics, error: stderr.trim().split('\n').filter(Boolean).pop() || 'the copy did not start' };
  if (t.rc !== '0') return { ...base, ok: false, metrics, error: stderr.trim().split('\n').filter(Boolean).pop() || `the copy failed (exit ${t.rc})` };
  if (!v) return { ...base, ok: false, metrics, error: stderr.trim().split('\n').filter(Boolean).pop() || 'the copy could not be listed afterwards' };
  const secs = Number(t.ns) / 1e9;
  const n = Number(v.src_files);
  const bytes = Number(v.src_bytes);
  facts.files = String(n);
  facts.bytes = String(bytes);
  metrics.push(
    { key: 'seconds', label: 'wall time', value: secs, unit: 's', better: 'lower' },
    { key: 'files_per_s', label: 'files/s', value: secs > 0 ? n / secs : 0, unit: 'files/s', better: 'higher' },
    { key: 'mb_per_s', label: 'throughput', value: secs > 0 ? bytes / 1e6 / secs : 0, unit: 'MB/s', better: 'higher' },
  );
  if (v.skipped) {
    facts.verified = 'not checked (verify=false)';
    return { ...base, ok: true, metrics };
  }
  const num = (k: string) => Number(v[k] ?? 0);
  const problems = [
    num('missing') ? `${num('missing')} file(s) missing` : '',
    num('differ') ? `${num('differ')} file(s) differ in size or checksum` : '',
    num('extra') ? `${num('extra')} unexpected file(s)` : '',
    num('src_bytes') !== num('dst_bytes') ? `${num('dst_bytes')} of ${num('src_bytes')} bytes` : '',
  ].filter(Boolean);
  facts.verified = `${num('dst_files')} of ${n} files, ${num('dst_bytes')} of ${bytes} bytes; ${num('same')} checksums match${num('unchecked') ? `, ${num('unchecked')} not comparable (multipart ETag)` : ''}`;
  if (num('unchecked')) notes.push(`${num('unchecked')} file(s) were compared by size only: their S3 ETag is not an MD5 (multipart upload).`);
  if (problems.length) return { ...base, ok: false, metrics, error: `The copy does not match its source: ${problems.join(', ')}.` };
  return { ...base, ok: true, metrics };
}

export const transfer: PresetDef<typeof params> = {
  id: 'transfer',
  title: 'Transfer',
  description:
    'Copy or sync a file set (generated, a directory or an S3 prefix) with rsync, cp, parallel cp, aws s3 sync or aws s3 cp: wall time, files/s, MB/s; the copy is verified (count, bytes, checksums) and removed.',
  params,
  confirmations: (p) => {
    const to = transferDestination(p.to, '…');
    const say: ConfirmSay = p.from
      ? { id: 'copyFrom', values: { from: p.from, to } }
      : { id: 'copyGenerated', values: { files: p.files, size: p.fileSize, to } };
    return [{ kind: 'write', say }];
  },
  script: (p, ctx) =>
    wrapScript(body(p, ctx.runId), {
      runDir: ctx.runDir,
      title: `transfer ${p.method}`,
      // The copy is removed on every exit, as the scratch directory is.
      cleanup: removeCopy(p, ctx.runId),
    }),
  cleanup: (p, ctx) => removeCopy(p, ctx.runId),
  estimateSeconds: (p) => 10 + (p.from ? 60 : (p.files * sizeToBytes(p.fileSize)) / 20e6 + p.files / 200),
  mountDirs: (p) =>
    Object.fromEntries(
      (
        [
          ['from', p.from],
          ['to', p.to],
        ] as const
      ).filter(([, d]) => d !== '' && !isS3(d)),
    ),
  parse: (stdout, stderr) => parseTransfer(stdout, stderr),
};

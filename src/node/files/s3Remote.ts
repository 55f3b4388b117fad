import { shJoin } from '../../common/shell.js';

// The instance's half of `tagssh cp --via-s3`: short `sh` scripts run over the connection's exec
// (ssh, EICE or SSM alike). Every path travels as a positional argument of `sh -c`, quoted once
// by shJoin, never spliced into the script; the presigned URL travels on stdin as curl's config
// (`-K -`), so it is in no command line, no process list and no log. Each script is one line
// without `!` so that whatever login shell reads the command (csh included) hands it to sh intact.
// Failures are told by exit status and a `tagssh-…` line on stderr; curl's own error line follows.

/** Exit statuses the scripts use, read by s3Route.ts. */
export const REMOTE_EXIT = {
  missingTool: 90,
  curl: 91,
  checksum: 92,
  noDirectory: 93,
  hash: 94,
  rename: 95,
  noSource: 96,
  notRegular: 97,
  unreadable: 98,
  unwritable: 99,
} as const;

const E = REMOTE_EXIT;

const NEED = `need() { command -v "$1" >/dev/null 2>&1 || { echo "tagssh-missing $1" >&2; exit ${E.missingTool}; }; }; ` + 'need curl; need sha256sum; ';

// -f: an HTTP error is a failure, not a saved error page; -S -#: errors and a percentage on stderr.
const CURL = `curl -f -S -# --connect-timeout 30 --retry 2 -H "Expect:" -K -`;

// Upload, instance side: where the file goes (inside `dest` when it is a directory), and the
// temporary name beside it. Arguments: $1 dest, $2 the source's name, $3 SHA-256, $4 a suffix.
const DESTINATION =
  NEED +
  'dst=$1; ' +
  `case $dst in */) [ -d "$dst" ] || { echo tagssh-nodir >&2; exit ${E.noDirectory}; };; esac; ` +
  'if [ -d "$dst" ]; then dst=${dst%/}/$2; fi; ' +
  'case $dst in */*) dir=${dst%/*}; [ -n "$dir" ] || dir=/;; *) dir=.;; esac; ' +
  `[ -d "$dir" ] || { echo tagssh-nodir >&2; exit ${E.noDirectory}; }; ` +
  `[ -w "$dir" ] || { echo tagssh-unwritable >&2; exit ${E.unwritable}; }; ` +
  'tmp=$dir/.${dst##*/}.tagssh-s3-$4; ';

/** Upload, before any byte goes to S3: the tools are there and the destination's directory is writable. */
export function probeCommand(dest: string, name: string): string {
  return shJoin(['sh', '-c', DESTINATION + `printf 'tagssh-ok %s\\n' "$dst"`, 'tagssh-s3', dest, name, '', 'probe']);
}

/**
 * Upload, instance side: fetch the object into a temporary name beside the destination, check its
 * SHA-256, then rename it into place. Prints `tagssh-ok PATH`.
 */
export function fetchCommand(dest: string, name: string, sha256: string, suffix: string): string {
  const script =
    DESTINATION +
    `${CURL} -o "$tmp" || { s=$?; rm -f -- "$tmp"; echo "tagssh-curl $s" >&2; exit ${E.curl}; }; ` +
    `got=$(sha256sum < "$tmp") || { rm -f -- "$tmp"; exit ${E.hash}; }; ` +
    'got=${got%% *}; ' +
    `[ "$got" = "$3" ] || { rm -f -- "$tmp"; echo "tagssh-sha $got" >&2; exit ${E.checksum}; }; ` +
    `mv -f -- "$tmp" "$dst" || { rm -f -- "$tmp"; exit ${E.rename}; }; ` +
    `printf 'tagssh-ok %s\\n' "$dst"`;
  return shJoin(['sh', '-c', script, 'tagssh-s3', dest, name, sha256, suffix]);
}

// A relative name that starts with '-' would be an option (and `-T -` reads stdin): ./ first.
const SOURCE = 'src=$1; case $src in /*) ;; *) src=./$src;; esac; ';

/** Download, instance side, first step: the source's size and SHA-256 (`tagssh-file SIZE SHA256`). */
export function inspectCommand(src: string): string {
  const script =
    NEED +
    SOURCE +
    `[ -e "$src" ] || { echo tagssh-nofile >&2; exit ${E.noSource}; }; ` +
    `[ -f "$src" ] || { echo tagssh-notfile >&2; exit ${E.notRegular}; }; ` +
    `[ -r "$src" ] || { echo tagssh-unreadable >&2; exit ${E.unreadable}; }; ` +
    `size=$(wc -c < "$src" | tr -d ' ') || exit ${E.unreadable}; ` +
    `sum=$(sha256sum < "$src") || exit ${E.hash}; ` +
    `printf 'tagssh-file %s %s\\n' "$size" "\${sum%% *}"`;
  return shJoin(['sh', '-c', script, 'tagssh-s3', src]);
}

/** Download, instance side, second step: PUT the file to the presigned URL on stdin. */
export function sendCommand(src: string): string {
  const script = NEED + SOURCE + `${CURL} -T "$src" -o /dev/null || { s=$?; echo "tagssh-curl $s" >&2; exit ${E.curl}; }`;
  return shJoin(['sh', '-c', script, 'tagssh-s3', src]);
}

/** curl's config for one URL: a quoted string, in which `\` and `"` are escaped. */
export function curlConfig(url: string): string {
  return `url = "${url.replace(/[\\"]/g, (c) => `\\${c}`)}"\n`;
}

/** Anything that looks like a URL or a signature, gone: what is left of remote stderr is safe to show. */
export function withoutSecrets(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<URL>').replace(/X-Amz-[A-Za-z-]+=[^&\s]+/g, 'X-Amz-…');
}

/** curl's error lines from its stderr, without the progress bar, secrets removed. */
export function curlErrors(stderr: string): string {
  return withoutSecrets(
    stderr
      .split(/[\r\n]+/)
      .map((l) => l.trim())
      .filter((l) => /^curl: /.test(l))
      .join('; '),
  );
}

/** The last percentage curl's `-#` bar printed in `chunk`, or null. */
export function curlPercent(chunk: string): number | null {
  const all = [...chunk.matchAll(/(\d{1,3}(?:\.\d)?)%/g)];
  const last = all.at(-1);
  return last ? Math.min(100, Number(last[1])) : null;
}

// Session-log file names from a pattern, as Tera Term's /L habit has them: fields in braces are
// replaced — {name}, {instanceId}, {region}, {user}, {type} — and a brace of date letters is the
// session's start in local time (yyyy MM dd HH mm ss, any separators among - _ . T): the default
// `{name}_{instanceId}_{yyyyMMdd-HHmmss}.log` gives `web-1_i-0abc…_20260301-091500.log`. Values
// come from tags: whatever a file system refuses (or a path separator) becomes `_`.

export const DEFAULT_LOG_PATTERN = '{name}_{instanceId}_{yyyyMMdd-HHmmss}.log';

const LOG_FIELDS = ['name', 'instanceId', 'region', 'user', 'type'] as const;
type LogField = (typeof LOG_FIELDS)[number];

const DATE_TOKEN = /^[yMdHms_.\-T]+$/;
const DATE_PART = /yyyy|MM|dd|HH|mm|ss/g;

/** Why a pattern cannot be used, or null when it can. */
export function patternProblem(pattern: string): string | null {
  if (!pattern.trim()) return 'empty';
  if (/[/\\]/.test(pattern)) return 'a path separator (the folder is set apart)';
  // eslint-disable-next-line no-control-regex -- control characters cannot be in a file name
  if (/[\x00-\x1f\x7f:*?"<>|]/.test(pattern.replace(/\{[^}]*\}/g, ''))) return 'a character file systems refuse';
  for (const m of pattern.matchAll(/\{([^}]*)\}|[{}]/g)) {
    if (m[1] === undefined) return 'an unmatched brace';
    const token = m[1];
    if ((LOG_FIELDS as readonly string[]).includes(token)) continue;
    if (DATE_TOKEN.test(token) && token.replace(DATE_PART, '').replace(/[_.\-T]/g, '') === '') continue;
    return `an unknown field {${token}}`;
  }
  return null;
}

/** A value made safe as part of a file name on every system and in every shell: letters (any script), digits, . _ - only. */
export function safeFilePart(s: string): string {
  return (
    s
      .replace(/[^\p{L}\p{N}._-]+/gu, '_')
      .replace(/^[.]+|[.]+$/g, '')
      .slice(0, 80) || '_'
  );
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function dateText(token: string, d: Date): string {
  return token.replace(DATE_PART, (p) =>
    p === 'yyyy'
      ? pad(d.getFullYear(), 4)
      : p === 'MM'
        ? pad(d.getMonth() + 1)
        : p === 'dd'
          ? pad(d.getDate())
          : p === 'HH'
            ? pad(d.getHours())
            : p === 'mm'
              ? pad(d.getMinutes())
              : pad(d.getSeconds()),
  );
}

/** The file name for a session started at `start` (local time, as the person's clock shows it). */
export function logFileName(pattern: string, values: Partial<Record<LogField, string | null | undefined>>, start: Date): string {
  const name = pattern.replace(/\{([^}]*)\}/g, (_, token: string) => {
    if ((LOG_FIELDS as readonly string[]).includes(token)) return safeFilePart(values[token as LogField] || '-');
    return dateText(token, start);
  });
  return name.replace(/^[.\s]+/, '') || 'session.log';
}

/** `name.log` → `name.cast` (a recording beside the text log); a name without .log gets .cast added. */
export function castFileName(logName: string): string {
  return logName.replace(/\.(log|txt)$/i, '') + '.cast';
}

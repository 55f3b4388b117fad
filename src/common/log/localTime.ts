// Times people read in files they keep (session logs, their headers): the reader's own clock with
// its offset, as ISO 8601 ("2026-12-02T13:05:06.123+09:00"). A UTC-only stamp made every reader
// outside UTC do the arithmetic, and an offset keeps the instant exact for anyone else.

const pad = (n: number) => String(n).padStart(2, '0');

/** ISO 8601 in the local time zone of this process, with its offset (never "Z"). */
export function localIsoTime(d: Date): string {
  const offsetMin = -d.getTimezoneOffset();
  const wall = new Date(d.getTime() + offsetMin * 60_000).toISOString().slice(0, -1);
  const a = Math.abs(offsetMin);
  return `${wall}${offsetMin >= 0 ? '+' : '-'}${pad(Math.floor(a / 60))}:${pad(a % 60)}`;
}

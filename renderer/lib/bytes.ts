// One way to say a byte count across the app (file sizes, transfers, tunnel traffic, log sizes,
// an upload to confirm): bytes below 1 KiB, whole KiB below 1 MiB, then one decimal, so a size
// reads the same wherever it shows.

const UNITS = ['MiB', 'GiB', 'TiB'] as const;

/** "512 B", "12 KiB", "3.0 MiB", "4.0 GiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const kib = Math.round(n / 1024);
  if (kib < 1024) return `${kib} KiB`;
  let v = n / (1024 * 1024);
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${UNITS[i]}`;
}

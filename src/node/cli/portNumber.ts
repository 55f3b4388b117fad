// The one rule for a port number on the command line. Free of commander so that the
// `tagssh resolve` fast path (commands/resolve/main.ts) can use it too.

/** A TCP port 1-65535, or undefined when `v` is not one. */
export function portNumber(v: string): number | undefined {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 && n <= 65535 ? n : undefined;
}

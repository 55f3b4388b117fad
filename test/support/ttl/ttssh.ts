// Parses a TTSSH command line (the `connect` argument) the way TTSSH splits it: words separated
// by spaces; a value in double quotes may hold spaces and `;`, with "" standing for one quote.

export interface TtsshCommandLine {
  host: string;
  port: number | null;
  options: Array<{ name: string; value: string | null }>;
}

export function splitTtssh(line: string): string[] {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ') i++;
    if (i >= line.length) break;
    let w = '';
    let quoted = false;
    while (i < line.length && (quoted || line[i] !== ' ')) {
      const c = line[i]!;
      if (c === '"') {
        if (quoted && line[i + 1] === '"') {
          w += '"';
          i += 2;
          continue;
        }
        quoted = !quoted;
        i++;
        continue;
      }
      w += c;
      i++;
    }
    if (quoted) throw new Error(`unbalanced double quote in TTSSH command line: ${line}`);
    words.push(w);
  }
  return words;
}

export function parseTtssh(line: string): TtsshCommandLine {
  const [first, ...rest] = splitTtssh(line);
  if (!first || first.startsWith('/')) throw new Error('TTSSH command line must start with host[:port]');
  const m = /^([^:]+)(?::(\d+))?$/.exec(first);
  if (!m) throw new Error(`bad host:port ${first}`);
  const options = rest.map((w) => {
    if (!w.startsWith('/')) throw new Error(`stray word ${w} in TTSSH command line`);
    const eq = w.indexOf('=');
    return eq < 0 ? { name: w.slice(1), value: null } : { name: w.slice(1, eq), value: w.slice(eq + 1) };
  });
  return { host: m[1]!, port: m[2] ? Number(m[2]) : null, options };
}

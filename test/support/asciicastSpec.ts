// An asciicast v2 checker written from the format's specification (asciinema's
// doc/asciicast-v2.md, now docs.asciinema.org/manual/asciicast/v2), independent of TagSSH's own
// reader in src/common/log/asciicast.ts, so a test checks the files TagSSH writes against the spec
// rather than against the code that wrote them. Returns the problems found ([] = a valid file).

export interface SpecCheck {
  problems: string[];
  header: Record<string, unknown> | null;
  /** "o" data joined, in order. */
  output: string;
  resizes: string[];
}

export function checkAsciicastV2(text: string): SpecCheck {
  const problems: string[] = [];
  const out: SpecCheck = { problems, header: null, output: '', resizes: [] };
  if (!text.endsWith('\n')) problems.push('the file does not end with a newline (newline-delimited JSON)');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? '');
  } catch {
    problems.push('line 1: the header is not JSON');
    return out;
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    problems.push('line 1: the header is not a JSON object');
    return out;
  }
  const h = header as Record<string, unknown>;
  out.header = h;
  // Required: version 2, width and height as integers.
  if (h.version !== 2) problems.push('header: version must be 2');
  for (const k of ['width', 'height']) if (!Number.isInteger(h[k]) || (h[k] as number) <= 0) problems.push(`header: ${k} must be a positive integer`);
  // Optional, typed.
  if (h.timestamp !== undefined && !Number.isInteger(h.timestamp)) problems.push('header: timestamp must be an integer (Unix time)');
  for (const k of ['duration', 'idle_time_limit']) if (h[k] !== undefined && typeof h[k] !== 'number') problems.push(`header: ${k} must be a number`);
  for (const k of ['command', 'title']) if (h[k] !== undefined && typeof h[k] !== 'string') problems.push(`header: ${k} must be a string`);
  if (h.env !== undefined) {
    if (typeof h.env !== 'object' || h.env === null) problems.push('header: env must be an object');
    else {
      for (const [k, v] of Object.entries(h.env)) if (typeof v !== 'string') problems.push(`header: env.${k} must be a string`);
      // "should not capture any additional environment variables unless explicitly permitted"
      for (const k of Object.keys(h.env)) if (k !== 'TERM' && k !== 'SHELL') problems.push(`header: env.${k} is more than SHELL and TERM`);
    }
  }
  let last = 0;
  lines.slice(1).forEach((line, i) => {
    const n = i + 2;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch {
      return void problems.push(`line ${n}: not JSON`);
    }
    if (!Array.isArray(ev) || ev.length !== 3) return void problems.push(`line ${n}: an event is a 3-element array`);
    const [time, code, data] = ev as [unknown, unknown, unknown];
    if (typeof time !== 'number' || time < 0) problems.push(`line ${n}: time must be a non-negative number of seconds`);
    else {
      if (time < last) problems.push(`line ${n}: time goes backwards (${time} < ${last})`);
      last = time;
    }
    if (!['o', 'i', 'm', 'r'].includes(code as string)) problems.push(`line ${n}: code ${JSON.stringify(code)} is not o, i, m or r`);
    if (typeof data !== 'string') return void problems.push(`line ${n}: data must be a string`);
    if (code === 'o') out.output += data;
    if (code === 'r') {
      if (!/^\d+x\d+$/.test(data)) problems.push(`line ${n}: resize data must be "{COLS}x{ROWS}"`);
      out.resizes.push(data);
    }
    if (code === 'i') problems.push(`line ${n}: input was recorded (a recorder should not capture it unless asked)`);
    // "valid, UTF-8 encoded JSON string … with any non-printable Unicode codepoints encoded as \uXXXX"
    // eslint-disable-next-line no-control-regex -- raw control characters are what must not be there
    if (/[\u0000-\u001f\u007f-\u009f]/.test(line)) problems.push(`line ${n}: a non-printable character is not \\u-escaped`);
  });
  return out;
}

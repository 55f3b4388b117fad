// What cmd.exe does with the command lines TagSSH macros pass to `exec`: `cmd /d /s /c "<inner>"`
// strips exactly the outer quotes; then, outside double quotes, & | < > ^ ( ) are operators and
// %VAR% expands everywhere. This parser accepts only what TagSSH means to emit — a plain command,
// one `> "%TEMP%\file"` redirect, %TEMP% as the only variable — and throws on anything else, so a
// name that reached cmd.exe unencoded would fail the test instead of being interpreted.

export interface CmdLine {
  argv: string[];
  redirectTo: string;
}

export function parseCmdExec(line: string, env: Record<string, string> = { TEMP: 'C:\\Temp' }): CmdLine {
  const m = /^cmd \/d \/s \/c "(.*)"$/s.exec(line);
  if (!m) throw new Error(`not a cmd /d /s /c "…" line: ${line}`);
  const inner = m[1]!;
  let quoted = false;
  let command = '';
  let redirect: string | null = null;
  // Word breaks: a space outside double quotes (the program path may be quoted, spaces and all).
  const BREAK = '\u0000';
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i]!;
    if (c === '%') {
      const end = inner.indexOf('%', i + 1);
      const name = end > 0 ? inner.slice(i + 1, end) : '';
      if (name !== 'TEMP') throw new Error(`cmd would expand %${name}% in: ${inner}`);
      const value = env.TEMP ?? '';
      if (redirect !== null) redirect += value;
      else command += value;
      i = end;
      continue;
    }
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    // eslint-disable-next-line no-control-regex
    if (/[\x00-\x1f]/.test(c)) throw new Error('control character on a cmd line');
    if (!quoted && /[&|<^()]/.test(c)) throw new Error(`cmd operator ${c} outside quotes in: ${inner}`);
    if (!quoted && c === '>') {
      if (redirect !== null) throw new Error('second redirect');
      redirect = '';
      continue;
    }
    if (redirect !== null) redirect += c;
    else command += c === ' ' && !quoted ? BREAK : c;
  }
  if (quoted) throw new Error('unbalanced quote on the cmd line');
  if (redirect === null) throw new Error('no redirect to the address file');
  return { argv: command.split(BREAK).filter((w) => w !== ''), redirectTo: redirect.trim() };
}

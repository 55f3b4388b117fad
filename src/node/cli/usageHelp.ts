import type { Command } from 'commander';

// Usage mistakes answered in `tagssh`'s own words, where commander alone would answer wrongly:
//   tagssh foo --help         → "unknown command", exit 2 (commander prints the general help, exit 0)
//   tagssh bench dd --help    → how to run dd: the run options and dd's parameters (commander: bench's help)
//   tagssh ssh web-1 uname -a → the remote command goes after `--`: tagssh ssh web-1 -- uname -a

/** The words after the program name, without commander's own. */
function words(argv: string[]): string[] {
  return argv.slice(2);
}

const HELP = new Set(['-h', '--help']);

/** Closest command names (commander's suggestion is only for its own error path). */
function closest(word: string, names: string[]): string | undefined {
  const dist = (a: string, b: string) => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0]![j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length]![b.length]!;
  };
  const best = names.map((n) => [n, dist(word, n)] as const).sort((x, y) => x[1] - y[1])[0];
  return best && best[1] <= (word.length >= 4 ? 2 : 1) ? best[0] : undefined;
}

/**
 * Answers `tagssh UNKNOWN --help` with an error (the general help would say the command exists).
 * Returns the exit code when it answered, else undefined.
 */
export function unknownCommandHelp(program: Command, argv: string[], write: (s: string) => void): number | undefined {
  const w = words(argv);
  const first = w[0];
  if (!first || first.startsWith('-') || !w.some((x) => HELP.has(x))) return undefined;
  const names = program.commands.flatMap((c) => [c.name(), ...c.aliases()]);
  if (names.includes(first) || first === 'help') return undefined;
  const mean = closest(first, names);
  write(`tagssh: unknown command '${first}'.${mean ? ` Did you mean '${mean}'?` : ''}\n  → \`tagssh --help\` lists the commands.\n`);
  return 2;
}

/** `tagssh bench [run] PRESET … --help`: the preset it asks about, else undefined. */
export async function benchPresetAsked(argv: string[]): Promise<string | undefined> {
  const w = words(argv);
  if (w[0] !== 'bench' || !w.some((x) => HELP.has(x))) return undefined;
  const preset = w[w[1] === 'run' ? 2 : 1];
  if (!preset || preset.startsWith('-')) return undefined;
  const { PRESET_IDS } = await import('../../common/bench/index.js');
  return (PRESET_IDS as readonly string[]).includes(preset) ? preset : undefined;
}

/** What `tagssh bench PRESET --help` says before the preset's parameters. */
export function benchPresetUsage(preset: string): string {
  return `Usage: tagssh bench ${preset} NAME… [--param key=value]… [options]\n  (\`tagssh bench run --help\` lists the options: --yes, --show-script, --follow, --json, --user, --via…)\n\n`;
}

/**
 * A remote command's options reach `tagssh ssh` only after `--`: an unknown option after the
 * instance's name says so, with the corrected line.
 */
export function remoteCommandHint(flag: string, argv: string[]): string | undefined {
  const w = words(argv);
  const at = w.indexOf('ssh');
  if (at < 0 || w.includes('--')) return undefined;
  const rest = w.slice(at + 1);
  // The first word that is not an option (or an option's value) is the name; a word after it began the command.
  const name = rest.findIndex(
    (x, i) => !x.startsWith('-') && !(i > 0 && /^-[uipP]$|^--(user|identity|port|via|pick|profile|region|transport|keepalive|log|snippet)$/.test(rest[i - 1]!)),
  );
  const flagAt = rest.indexOf(flag);
  if (name < 0 || flagAt <= name + 1) return undefined;
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const fixed = ['tagssh', 'ssh', ...rest.slice(0, name + 1), '--', ...rest.slice(name + 1)].map(quote).join(' ');
  return `a remote command's options go after \`--\`: ${fixed}`;
}

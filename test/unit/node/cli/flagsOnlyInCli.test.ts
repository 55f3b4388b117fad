import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

// The engine says codes and reasons; the CLI words them with its flags (src/node/cli/errorWords.ts)
// and the app with its controls. This scan keeps a CLI flag (`--region`, `--identity`…) out of the
// engine's error messages and hints: in a `new AppError(…)`, or a value named hint or message,
// anywhere in src/common or src/node outside src/node/cli.

const ROOT = join(import.meta.dirname, '../../../..');

/** Files whose errors still name flags, each with why. Empty it as they move to the CLI's words. */
const ALLOWED: Record<string, string> = {
  'src/node/aws/securityGroups/securityGroups.ts': 'checks the values of `tagssh sg`’s --group and --ip flags; the app picks from a list',
  'src/node/stacks/stacks.ts': 'checks the flags of `tagssh stack up`, a CLI-only command',
  'src/node/bench/ssmFleet.ts': 'checks the flags of `tagssh bench --ssm`, a CLI-only run',
  'src/node/bench/runner.ts': 'benchmark run errors: their reasons are the next step of this work',
  'src/node/bench/peerRun.ts': 'a pair run’s address hints name `--param`; the app’s bench form names its fields itself',
  'src/node/bench/runResult.ts': 'a failed run points to `tagssh results --show`; benchmark run reasons are the next step of this work',
  'src/common/bench/index.ts': 'checks `--param` values; the app’s bench form names its fields itself',
  'src/common/bench/presets/cpufreq.ts': 'a preset’s `--param` hint; the app’s bench form names its fields itself',
  'src/common/bench/presets/unixbench.ts': 'a preset’s `--param` hint; the app’s bench form names its fields itself',
  'src/common/export/teraterm.ts': 'export checks; the app’s export dialog drops hints naming flags (exports/exportResult.ts)',
  'src/common/export/sshConfig.ts': 'export checks; the app’s export dialog drops hints naming flags (exports/exportResult.ts)',
};

const FLAG = /(^|[\s(`'"“])--[a-z]/;
const WORDS_NAME = /hint|message/i;
/** What makes an error: AppError itself, or a factory such as invalid(message, hint) or notFoundError(…). */
const ERROR_MAKER = /^(AppError|invalid|\w*Error)$/;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return p.endsWith(join('src', 'node', 'cli')) ? [] : tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

/** Why a string is error words: inside an AppError's arguments, or a value named hint/message. */
function wordsContext(node: ts.Node): string | null {
  for (let p: ts.Node | undefined = node.parent; p && !ts.isSourceFile(p); p = p.parent) {
    if ((ts.isNewExpression(p) || ts.isCallExpression(p)) && ERROR_MAKER.test(p.expression.getText())) return `${p.expression.getText()}(…)`;
    if ((ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p)) && WORDS_NAME.test(p.name.getText())) return p.name.getText();
    if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken && WORDS_NAME.test(p.left.getText())) return p.left.getText();
    if (ts.isFunctionLike(p)) return null;
  }
  return null;
}

/** Each error message or hint in a source text that names a flag: line and text. */
function flagsInErrorWords(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isStringLiteralLike(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) {
      const where = FLAG.test(n.text) ? wordsContext(n) : null;
      if (where) found.push(`${source.getLineAndCharacterOfPosition(n.getStart()).line + 1} (${where}): ${n.text.trim()}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

describe('CLI flags in the engine’s error words', () => {
  it('the engine names no CLI flag in an error message or hint (the CLI words them in src/node/cli/errorWords.ts)', () => {
    const files = [...tsFiles(join(ROOT, 'src/node')), ...tsFiles(join(ROOT, 'src/common'))];
    const offenders = files.flatMap((f) => {
      const rel = relative(ROOT, f).split('\\').join('/');
      if (ALLOWED[rel]) return [];
      const text = readFileSync(f, 'utf8');
      // Parsing only the files that name a flag at all keeps the scan quick.
      return FLAG.test(text) ? flagsInErrorWords(f, text).map((hit) => `${rel}:${hit}`) : [];
    });
    assert.deepEqual(offenders, []);
  });

  it('every allowed file still names a flag (an entry that is no longer needed goes)', () => {
    for (const file of Object.keys(ALLOWED)) {
      assert.notDeepEqual(flagsInErrorWords(file, readFileSync(join(ROOT, file), 'utf8')), [], `${file} no longer needs its entry`);
    }
  });

  it('finds a flag in an AppError, a hint variable, an assignment and an error factory, not in a shell command', () => {
    const found = flagsInErrorWords(
      'x.ts',
      [
        "throw new AppError('BAD_REGION', 'No region.', `Pass --region ${r}.`);",
        "const hint = 'add --eic';",
        "let message = ''; message = `try --via ${h}`;",
        "const script = 'fio --name=tagssh';",
        "function f() { return new AppError('INVALID_INPUT', 'No region.', undefined, { reason: 'no-region' }); }",
        "throw invalid('No login user.', 'Pass --user.');",
      ].join('\n'),
    );
    assert.deepEqual(
      found.map((f) => f.split(':')[0]),
      ['1 (AppError(…))', '2 (hint)', '3 (message)', '6 (invalid(…))'],
    );
  });
});

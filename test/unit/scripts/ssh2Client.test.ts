import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

// The CLI bundle takes ssh2 through scripts/ssh2Client.mjs (scripts/build.mjs), not ssh2's
// index.js. TypeScript checks the code against ssh2's whole API, so a member the slim entry lacks
// would be undefined only at run time, in the CLI alone: every member src/ reads from ssh2 must be
// there, and be ssh2's own.

const root = join(import.meta.dirname, '../../..');
const require = createRequire(import.meta.url);
const ssh2 = require('ssh2') as Record<string, unknown>;
const slim = ((await import(join(root, 'scripts/ssh2Client.mjs'))) as { default: Record<string, unknown> }).default;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

function member(of: Record<string, unknown>, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>((o, k) => ((o && typeof o === 'object') || typeof o === 'function' ? (o as Record<string, unknown>)[k] : undefined), of);
}

/** Member paths of ssh2 read as values: `ssh2.Client`, `ssh2.utils.parseKey`, named value imports. */
function usedMembers(): Set<string> {
  const used = new Set<string>();
  for (const file of sourceFiles(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (!/from 'ssh2'/.test(text)) continue;
    for (const m of text.matchAll(/\bssh2\.([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)/g)) used.add(m[1]!);
    for (const m of text.matchAll(/import\s+\{([^}]*)\}\s+from 'ssh2'/g))
      for (const name of m[1]!.split(',').map((s) => s.trim())) if (name && !name.startsWith('type ')) used.add(name.split(/\s+as\s+/)[0]!);
  }
  // Type-only names (ssh2.ConnectConfig) are not values of ssh2 at run time.
  return new Set([...used].filter((p) => member(ssh2, p) !== undefined));
}

describe("the CLI's slim ssh2 entry", () => {
  it('has every member of ssh2 that src/ reads, and each is the same as ssh2 exports', () => {
    const used = usedMembers();
    assert.ok(used.has('Client') && used.has('utils.parseKey'), `found: ${[...used].join(', ')}`);
    for (const path of used) assert.equal(member(slim, path), member(ssh2, path), `ssh2.${path}`);
  });
});

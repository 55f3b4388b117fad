#!/usr/bin/env node
// Entry point for `tagssh`. The CLI ships as a prebuilt bundle (built by `npm install`'s prepare
// step); a checkout without it builds it once, then runs it. `tagssh resolve …` takes the fast
// path (dist/cli/tagssh-resolve.mjs: no commander, one module), which defers to the full CLI
// for --help and usage errors.
import { existsSync } from 'node:fs';

const full = new URL('../dist/cli/tagssh.mjs', import.meta.url);
const fast = new URL('../dist/cli/tagssh-resolve.mjs', import.meta.url);
if (!existsSync(full) || !existsSync(fast)) {
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url)), 'cli'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
const code = process.argv[2] === 'resolve' ? await (await import(fast.href)).fastResolve(process.argv) : undefined;
if (code === undefined) await import(full.href);
else process.exitCode = code;

#!/usr/bin/env node
// Entry point for `tagssh`. The CLI ships as a prebuilt bundle (built by `npm install`'s prepare
// step); a checkout without it builds it once, then runs it.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/tagssh.mjs', import.meta.url);
if (!existsSync(entry)) {
  execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url)), 'cli'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
await import(entry.href);

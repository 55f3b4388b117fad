#!/usr/bin/env node
// `npm run faults`: the fault suite (test/faults/suite.ts) in a loopback-only network namespace,
// printing one table. Usage: node test/faults/run.mjs [scenario ...] [--quick]
import { reexecInLoopbackNamespace } from '../../scripts/netns.mjs';

reexecInLoopbackNamespace();
const { tsImport } = await import('tsx/esm/api');
const { main } = await tsImport('./suite.ts', import.meta.url);
process.exit(await main(process.argv.slice(2)));

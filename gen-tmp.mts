import { getPreset, validateParams } from '/work/main/src/common/bench/index.ts';
const [id, json] = process.argv.slice(2);
const p = getPreset(id!);
process.stdout.write(p.script(validateParams(p, JSON.parse(json ?? '{}')) as never, { runId: 'manual-test1', runDir: '/tmp/tagssh-manual-test1', peerAddress: '127.0.0.1' }));

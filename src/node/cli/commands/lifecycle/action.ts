import { awsScopeFrom } from '../../awsFlags.js';
import type { LifecycleFlags } from './flags.js';

// `tagssh start|stop NAME`: the new state on stdout once reached (progress on stderr).

export async function lifecycleCommand(verb: 'start' | 'stop', name: string, flags: LifecycleFlags): Promise<void> {
  const { withJsonErrors, printJson, progressLine } = await import('../../output.js');
  await withJsonErrors(flags.json, async () => {
    const lifecycle = await import('../../../aws/instances/lifecycle.js');
    const progress = progressLine();
    const run = verb === 'start' ? lifecycle.startInstance : lifecycle.stopInstance;
    const inst = await run(name, { ...awsScopeFrom(flags), ...(flags.pick ? { pick: flags.pick } : {}), wait: flags.wait !== false, onProgress: progress });
    progress.done();
    if (flags.json) printJson(inst);
    else process.stdout.write(`${inst.id} ${inst.state}${inst.publicIp && inst.state === 'running' ? ` ${inst.publicIp}` : ''}\n`);
  });
}

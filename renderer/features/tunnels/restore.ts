import type { SavedTunnel } from '../../../src/common/tunnels/contract.js';
import type { WorkspaceTunnel } from '../../../src/common/workspace/contract.js';
import type { Api } from '../../lib/api.js';
import { defineMessages } from '../../i18n/index.js';
import { describeTunnel, errorText } from './describe.js';

// Workspace restore's tunnels (renderer/features/terminal/workspace.ts asks and reports): the
// previous run's tunnels named as the Tunnels tab names them, and started again by saved id (a
// tag tunnel on the instance it ran on), each settling with why it did not start.

const t = defineMessages({
  en: {
    named: '{label} ({tunnel})',
    namedOn: '{label} on {instance} ({tunnel})',
    deleted: 'This tunnel has been deleted since.',
  },
  ja: {
    named: '{label}（{tunnel}）',
    namedOn: '{instance} の {label}（{tunnel}）',
    deleted: 'このトンネルはその後削除されました。',
  },
});

export interface TunnelRestorer {
  /** The tunnel in the Tunnels tab's words (its kept label if it is no longer saved). */
  label(w: WorkspaceTunnel): string;
  /** Starts it again; settles with why it did not start (null once it runs). */
  start(w: WorkspaceTunnel): Promise<string | null>;
}

/** Reads the saved tunnels once, to name and start the kept ones. */
export async function tunnelRestorer(api: Api): Promise<TunnelRestorer> {
  let listed: string | null = null;
  const saved = new Map<string, SavedTunnel>();
  try {
    for (const x of (await api.call('tunnels.list', {})).tunnels) saved.set(x.id, x);
  } catch (e) {
    // Every kept tunnel is then named by its kept label and not started, with this reason.
    listed = errorText(e as Parameters<typeof errorText>[0], undefined);
  }
  return {
    label(w) {
      const tn = saved.get(w.id);
      const tunnel = tn ? describeTunnel(tn, null) : w.id;
      const label = tn?.label || w.label;
      return w.instanceId ? t('namedOn', { label, instance: w.instanceId, tunnel }) : t('named', { label, tunnel });
    },
    async start(w) {
      const tn = saved.get(w.id);
      if (!tn) return listed ?? t('deleted');
      try {
        await api.call('tunnels.start', { id: w.id, ...(w.instanceId ? { instanceId: w.instanceId } : {}), ...(w.region ? { region: w.region } : {}) });
        return null;
      } catch (e) {
        return errorText(e as Parameters<typeof errorText>[0], tn);
      }
    },
  };
}

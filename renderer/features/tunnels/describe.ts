import type { AppErrorData } from '../../../src/common/errors.js';
import type { Instance } from '../../../src/common/model/instance.js';
import { TunnelErrorDetailsSchema, type SavedTunnel, type TunnelStatusPayload } from '../../../src/common/tunnels/contract.js';
import { detailsAs } from '../../../src/common/errorDetails.js';
import { tagText } from '../../../src/common/tunnels/binding.js';
import { DEFAULT_BIND, formatAddress, formatHost, type TunnelKind, type TunnelProblem } from '../../../src/common/tunnels/spec.js';
import { describeError } from '../../i18n/errors.js';
import { getLocale } from '../../i18n/index.js';
import { t, type TunnelWord } from './messages.js';

// A tunnel, its state and its problems in the app's words, for the form and the rows alike.

export const KINDS: Array<[TunnelKind, TunnelWord]> = [
  ['local', 'kindLocal'],
  ['dynamic', 'kindDynamic'],
  ['remote', 'kindRemote'],
];
export const STATE_WORD: Record<TunnelStatusPayload['state'], TunnelWord> = {
  stopped: 'stateStopped',
  connecting: 'stateConnecting',
  open: 'stateOpen',
  reconnecting: 'stateReconnecting',
  failed: 'stateFailed',
};

/** "4 min 12 s", "2 h 3 min", "12 s" in the app's words. */
function durationText(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  if (h) return t('durHours', { h, m });
  if (m) return t('durMinutes', { m, s: sec });
  return t('durSeconds', { s: sec });
}

export const timeOfDay = (at: number) =>
  new Intl.DateTimeFormat(getLocale(), { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(new Date(at));

export const connectedText = (since: number) => t('connectedFor', { duration: durationText(Date.now() - since), time: timeOfDay(since) });

export function problemWord(p: TunnelProblem, kind: TunnelKind): TunnelWord {
  if (p.code === 'portInvalid' && p.field === 'port' && kind !== 'remote') return 'problem_portInvalidLocal';
  return `problem_${p.code}` as TunnelWord;
}

/**
 * Where a tunnel listens: the live address while it runs, else the saved one; a saved port 0 is
 * "any free port" until the tunnel is started and the system picks one (never ":0").
 */
function listenText(tn: SavedTunnel, address: string | null): string {
  if (address) return address;
  const bind = tn.bind ?? DEFAULT_BIND;
  if (tn.port === 0 && tn.kind !== 'remote') return t('anyFreePort', { bind: formatHost(bind) });
  return formatAddress(bind, tn.port);
}

/** "127.0.0.1:8080 → db:5432" in the app's words, from the saved spec and the live address. */
export function describeTunnel(tn: SavedTunnel, address: string | null): string {
  const where = listenText(tn, address);
  if (tn.kind === 'dynamic') return t('socks', { address: where });
  const dest = formatAddress(tn.host ?? '', tn.hostPort ?? 0);
  return t(tn.kind === 'local' ? 'localDesc' : 'remoteDesc', { address: where, dest });
}

/** Which run a row or status is: the tunnel, and for a tag tunnel the instance it runs on. */
export const runKey = (id: string, instanceId: string | undefined) => `${id} ${instanceId ?? ''}`;

export const isRunning = (s: TunnelStatusPayload | undefined) => !!s && s.state !== 'stopped' && s.state !== 'failed';

/** The status of a run the engine does not list: stopped, no traffic. */
export function stoppedStatus(tn: SavedTunnel, inst: Instance | undefined): TunnelStatusPayload {
  return {
    id: tn.id,
    ...(inst ? { instanceId: inst.id } : {}),
    state: 'stopped',
    address: null,
    bytesIn: 0,
    bytesOut: 0,
    active: 0,
    error: null,
    reconnects: 0,
    connectedSince: null,
    lastError: null,
    waiting: 0,
  };
}

export function errorText(err: AppErrorData, tn: SavedTunnel | undefined, nameOf: (instanceId: string) => string = (id) => id): string {
  const d = detailsAs(err, TunnelErrorDetailsSchema);
  if (tn && d?.problem === 'tagPortTaken' && d.instanceId) return t('listen_tagPortTaken', { port: tn.port, instance: nameOf(d.instanceId) });
  if (tn?.tag && d?.problem === 'tagMissing' && d.instanceId) return t('tagMissing', { instance: nameOf(d.instanceId), tag: tagText(tn.tag) });
  if (tn && d?.problem && ['portInUse', 'portPrivileged', 'bindUnavailable'].includes(d.problem))
    return t(`listen_${d.problem}` as TunnelWord, { port: tn.port, bind: tn.bind ?? '127.0.0.1' });
  const w = describeError(err);
  return [w.title, w.hint, w.detail].filter(Boolean).join(' ');
}

import type { BenchResultSummary } from '../../../src/common/bench/contract.js';
import type { PeerAddressChoice } from '../../../src/common/bench/peerAddress.js';
import { formatDateTime } from '../../i18n/index.js';
import { t, type BenchMessage } from './messages.js';

// The Benchmarks view's sentences about a run: its status, the peer address it used and why, what
// to do after a failure, and its dates — shared by the progress rows, the result list and details.

/** The iperf3 parameter that says how the peer is reached (its field name in the form). */
const ADDRESS_PARAM = 'address';

export const statusWord = (s: string) => t(`status_${s}` as BenchMessage);

/** The peer-address sentence of the app: which address, and why that one. */
export function peerSentence(peer: string, c: PeerAddressChoice): string {
  const why = {
    'same-vpc': t('whySameVpc', { vpc: c.vpcId ?? 'VPC' }),
    'different-vpc': t('whyDifferentVpc'),
    'vpc-unknown': t('whyVpcUnknown'),
    'no-private-address': t('whyNoPrivate'),
    asked: t('whyAsked', { field: ADDRESS_PARAM, value: c.mode }),
  }[c.reason];
  return t('peerChosen', { peer, kind: t(c.kind === 'private' ? 'kindPrivate' : 'kindPublic'), address: c.address, why });
}

/** What to do after a failed run, in the app's words (stored hints are the CLI's). */
export function failureHint(r: Pick<BenchResultSummary, 'status' | 'peerAddress' | 'params' | 'error'>): string | undefined {
  if (r.status !== 'failed') return undefined;
  switch (r.error?.code) {
    case 'HOST_KEY_UNKNOWN':
      return t('hintTrustNew', { field: t('acceptNew') });
    case 'HOST_KEY_CHANGED':
      return t('hintKeyChanged');
    case 'AUTH_FAILED':
      return t('hintAuth');
    case 'CONNECT_FAILED':
    case 'NETWORK':
    case 'TIMEOUT':
      return t('hintConnect');
  }
  const port = String(r.params.port ?? '');
  // The runner names the address in the message only when the client could not reach the peer.
  if (r.peerAddress && r.error?.message.includes(r.peerAddress.address))
    return r.peerAddress.kind === 'private' ? t('hintTryPublic', { field: ADDRESS_PARAM, port }) : t('hintCheckPort', { field: ADDRESS_PARAM, port });
  return t('hintSeeOutput');
}

export const dateOf = (iso: string | undefined) => (iso ? formatDateTime(Date.parse(iso)) : '–');

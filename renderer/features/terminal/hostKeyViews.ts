import type { AppError } from '../../../src/common/errors.js';
import type { HostKeyChangedDetails, HostKeyUnknownDetails } from '../../../src/common/errorDetails.js';
import { h } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { formatDateTime } from '../../i18n/index.js';
import { t } from './messages.js';
import { statusButton, type StatusBar } from './statusBar.js';

// The host-key questions of an open: a first-contact key is shown with its fingerprint and what
// the console output says of it, and trusted only when the person says so; a changed key is
// refused, with Forget (after a confirmation) as the only way on.

export function promptHostKey(status: StatusBar, d: HostKeyUnknownDetails, retry: (extra?: { acceptNewHostKey?: string }) => void): void {
  if (d.nameMoved && d.instanceId) return promptMovedName(status, d, d.nameMoved, d.instanceId, retry);
  const fp = d.fingerprint;
  const consoleMatch = d.consoleMatch;
  const label = `${d.label}${d.instanceId ? ` (${d.instanceId})` : ''}`;
  status.view(
    consoleMatch === false ? 'error' : 'warn',
    () =>
      h(
        'div',
        { class: 'hostkey', 'data-testid': 'hostkey-prompt' },
        h('strong', { text: t('hkFirst', { label }) }),
        h('p', {}, `${t('hkFingerprint', { type: d.keyType })} `, h('code', { class: 'fp', text: fp })),
        h('p', {
          class: 'console-match',
          'data-match': consoleMatch === false ? 'false' : 'none',
          text: consoleMatch === false ? t('hkConsoleNoMatchShort') : t('hkConsoleNoneShort'),
        }),
        consoleMatch === false ? h('p', { class: 'bad', text: t('hkConsoleNoMatch') }) : h('p', { text: t('hkConsoleNone') }),
      ),
    () => [
      statusButton(t('hkTrust'), consoleMatch === false ? 'danger' : 'primary', () => retry({ acceptNewHostKey: fp })),
      statusButton(t('cancel'), '', () =>
        status.view(
          'info',
          () => h('span', { text: t('hkNotTrusted') }),
          () => [statusButton(t('connectAgain'), '', () => retry())],
        ),
      ),
    ],
  );
}

const launched = (time: string | null) =>
  time && !Number.isNaN(Date.parse(time)) ? t('hkLaunched', { time: formatDateTime(Date.parse(time)) }) : t('hkLaunchUnknown');

/** The Name was trusted for another instance: a warning naming both, whatever the console output says. */
function promptMovedName(
  status: StatusBar,
  d: HostKeyUnknownDetails,
  moved: NonNullable<HostKeyUnknownDetails['nameMoved']>,
  instanceId: string,
  retry: (extra?: { acceptNewHostKey?: string }) => void,
): void {
  status.view(
    'warn',
    () =>
      h(
        'div',
        { class: 'hostkey', 'data-testid': 'hostkey-moved' },
        h('strong', { text: t('hkMoved', { label: d.label }) }),
        h(
          'p',
          { 'data-testid': 'hostkey-moved-was' },
          `${t('hkMovedWas', { id: moved.previousInstanceId })} · `,
          h('span', { class: 'launched', text: launched(moved.previousLaunchTime) }),
        ),
        h(
          'p',
          { 'data-testid': 'hostkey-moved-now' },
          `${t('hkMovedNow', { id: instanceId })} · `,
          h('span', { class: 'launched', text: launched(moved.launchTime) }),
        ),
        h('p', {}, `${t('hkFingerprint', { type: d.keyType })} `, h('code', { class: 'fp', text: d.fingerprint })),
        h('p', {
          class: 'console-match',
          'data-match': d.consoleMatch === null ? 'none' : String(d.consoleMatch),
          text: d.consoleMatch === true ? t('hkConsoleMatchShort') : d.consoleMatch === false ? t('hkConsoleNoMatchShort') : t('hkConsoleNoneShort'),
        }),
        h('p', { class: 'bad', text: t('hkMovedWhy') }),
      ),
    () => [
      statusButton(t('hkTrustMoved', { id: instanceId, label: d.label }), 'danger', () => retry({ acceptNewHostKey: d.fingerprint })),
      statusButton(t('cancel'), '', () =>
        status.view(
          'info',
          () => h('span', { 'data-testid': 'hostkey-not-trusted', text: t('hkNotTrusted') }),
          () => [statusButton(t('connectAgain'), '', () => retry())],
        ),
      ),
    ],
  );
}

/** `forget` removes the instance's trusted key and opens again. */
export function refuseHostKey(status: StatusBar, err: AppError, d: HostKeyChangedDetails | undefined, forget: (instanceId: string) => Promise<void>): void {
  const instanceId = d?.instanceId;
  status.view(
    'error',
    () =>
      h(
        'div',
        { class: 'hostkey', 'data-testid': 'hostkey-refused' },
        h('strong', { text: t('hkChanged') }),
        h('p', { class: 'detail', text: err.message }),
        d ? h('p', {}, `${t('hkTrusted')} `, h('code', { class: 'fp', text: d.oldFingerprint })) : null,
        d ? h('p', {}, `${t('hkOffered')} `, h('code', { class: 'fp', text: d.newFingerprint })) : null,
        h('p', { class: 'hint', text: t('hkChangedHint') }),
      ),
    () =>
      instanceId
        ? [
            statusButton(t('hkForget'), 'danger', async () => {
              const ok = await confirmDialog({
                title: t('hkForgetTitle'),
                body: t('hkForgetBody', { id: instanceId }),
                confirm: t('hkForgetConfirm'),
                cancel: t('cancel'),
                danger: true,
              });
              if (!ok) return;
              await forget(instanceId);
            }),
          ]
        : [],
  );
}

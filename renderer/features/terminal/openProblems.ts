import type { AppError, AppErrorData } from '../../../src/common/errors.js';
import type { Candidate } from '../../../src/common/model/instance.js';
import { detailsOf } from '../../../src/common/errorDetails.js';
import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { describeError, type ErrorField } from '../../i18n/errors.js';
import { showSgDiagnosis, timeoutDiagnosis } from '../network/sgDiagnosis.js';
import { pickCandidate } from './candidatePicker.js';
import { promptHostKey, refuseHostKey } from './hostKeyViews.js';
import { t, type TerminalWord } from './messages.js';
import { statusButton, type StatusBar } from './statusBar.js';

// An open that failed, resolved with the person where the app can: a first-contact host key to
// trust, one instance among several with the name, a stopped instance to start, a timeout the
// security groups explain. Anything else is shown in the app's words with Retry and, when a
// setting fixes it, a button to that setting.

/** What the problem views need of the tab. */
export interface OpenProblemHost {
  api: Api;
  status: StatusBar;
  /** The name the person asked for. */
  label: string;
  /** Opens again (trusting this host key, when given). */
  retry(extra?: { acceptNewHostKey?: string }): void;
  /** Opens again, starting the instance first (the person agreed to). */
  startAndRetry(): void;
  /** Opens again, on this one of the instances with the name. */
  pick(c: Candidate): void;
  openSettings(field?: ErrorField): void;
}

export function showOpenProblem(err: AppError, host: OpenProblemHost): void {
  const { status, label } = host;
  // Details are read through their code's schema: a payload that does not fit gets the plain error view.
  const unknownKey = detailsOf(err, 'HOST_KEY_UNKNOWN');
  const ambiguous = detailsOf(err, 'AMBIGUOUS');
  switch (err.code) {
    case 'HOST_KEY_UNKNOWN':
      return unknownKey ? promptHostKey(status, unknownKey, host.retry) : showOpenError(err, host);
    case 'HOST_KEY_CHANGED':
      return refuseHostKey(status, err, detailsOf(err, 'HOST_KEY_CHANGED'), async (instanceId) => {
        await host.api.call('hostKeys.forget', { instanceId });
        host.retry();
      });
    case 'AMBIGUOUS':
      return ambiguous ? pickCandidate(status, label, ambiguous.candidates, host.pick) : showOpenError(err, host);
    case 'TIMEOUT': {
      // Timed out: what the security groups say (with "Allow my IP"), when the backend could tell.
      const sg = timeoutDiagnosis(err);
      return sg
        ? showSgDiagnosis(sg, {
            api: host.api,
            retry: () => host.retry(),
            view: (k, b, a) => status.view(k, b, a),
            button: statusButton,
          })
        : showOpenError(err, host);
    }
    case 'CANCELLED':
      return status.view(
        'info',
        () =>
          h('span', {
            'data-testid': 'cancelled',
            text: detailsOf(err, 'CANCELLED')?.instanceStarting ? t('cancelledStarting', { label }) : t('cancelled'),
          }),
        () => [statusButton(t('connectAgain'), 'primary', () => host.retry())],
      );
    case 'STOPPED':
      return status.view(
        'warn',
        () => h('span', {}, h('strong', { text: t('stopped', { label }) }), ' ', h('span', { class: 'hint', text: t('stoppedHint') })),
        () => [statusButton(t('startAndConnect'), 'primary', () => void confirmStart(host))],
      );
    default:
      return showOpenError(err, host);
  }
}

/** An error in the app's words, with Retry and, when a setting fixes it, a button to that setting. */
function showOpenError(err: AppErrorData, host: OpenProblemHost): void {
  host.status.view(
    'error',
    () => {
      const words = describeError(err);
      return h(
        'div',
        { 'data-testid': 'open-error', 'data-code': err.code },
        h('strong', { text: words.title }),
        words.detail ? h('p', { class: 'detail', text: words.detail }) : null,
        words.hint ? h('p', { class: 'hint', text: words.hint }) : null,
      );
    },
    () => {
      const { field } = describeError(err);
      return [
        statusButton(t('retry'), 'primary', () => host.retry()),
        ...(field ? [statusButton(t('openSettingsAt', { field: t(FIELD_WORD[field]) }), '', () => host.openSettings(field))] : []),
      ];
    },
  );
}

/** Start and connect asks first, as Stop does: starting an instance changes it and costs money. */
async function confirmStart(host: OpenProblemHost): Promise<void> {
  const ok = await confirmDialog({
    title: t('startTitle', { label: host.label }),
    body: t('startBody', { label: host.label }),
    confirm: t('startConfirm'),
    cancel: t('cancel'),
  });
  if (ok) host.startAndRetry();
}

const FIELD_WORD: Record<ErrorField, TerminalWord> = {
  profile: 'fieldProfile',
  regions: 'fieldRegions',
  defaultUser: 'fieldDefaultUser',
  identityFile: 'fieldIdentityFile',
  port: 'fieldPort',
  jumpHost: 'fieldJumpHost',
};

import type { AppError, AppErrorData } from '../../../src/common/errors.js';
import type { Candidate } from '../../../src/common/model/instance.js';
import { detailsOf, reasonDetailsOf } from '../../../src/common/errorDetails.js';
import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { describeError, type ErrorField } from '../../i18n/errors.js';
import { nameNotFound } from '../../i18n/errorReasons.js';
import { showSgDiagnosis, timeoutDiagnosis } from '../securityGroups/sgDiagnosis.js';
import { pickCandidate } from './candidatePicker.js';
import { promptHostKey, refuseHostKey } from './hostKeyViews.js';
import { t, type TerminalWord } from './messages.js';
import { statusButton, type StatusBar } from './statusBar.js';
import { serialConsoleDetailsOf, serialConsoleHelps } from '../../../src/common/serialConsole/rules.js';
import { t as serialWords } from '../serialConsole/messages.js';

// An open that failed, resolved with the person where the app can: a first-contact host key to
// trust, one instance among several with the name, a stopped instance to start, a timeout the
// security groups explain. Anything else is shown in the app's words with Retry and, when a
// setting fixes it, a button to that setting.

/** What the problem views need of the tab. */
interface OpenProblemHost {
  api: Api;
  status: StatusBar;
  /** The name the person asked for. */
  label: string;
  /** Opens again (trusting this host key, or pushing an EC2 Instance Connect key, when given). */
  retry(extra?: { acceptNewHostKey?: string; eic?: boolean }): void;
  /** Opens again, starting the instance first (the person agreed to). */
  startAndRetry(): void;
  /** Opens again, on this one of the instances with the name. */
  pick(c: Candidate): void;
  /** Opens again to another Name (one the backend suggested for a Name typed almost right). */
  rename(name: string): void;
  openSettings(field?: ErrorField): void;
  /** Opens the instance's "Connect as…" (user, key file, port), then opens again. */
  connectAs?(instanceId: string): void;
  /** Opens the instance's EC2 Serial Console instead (absent in a serial console tab). */
  serialConsole?(): void;
}

export function showOpenProblem(err: AppError, host: OpenProblemHost): void {
  const { status, label } = host;
  // Details are read through their code's schema: a payload that does not fit gets the plain error view.
  const unknownKey = detailsOf(err, 'HOST_KEY_UNKNOWN');
  const ambiguous = detailsOf(err, 'AMBIGUOUS');
  // A serial console's refusals (its host key included) are worded by their details: no "forget" here.
  if (serialConsoleDetailsOf(err)) return showOpenError(err, host);
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
    case 'NOT_FOUND': {
      // A Name typed almost right (case, a dash, full-width characters): offer the ones that exist.
      const near = reasonDetailsOf(err);
      if (near?.reason !== 'no-such-name' || !near.suggestions.length) return showOpenError(err, host);
      return status.view(
        'error',
        () =>
          h(
            'div',
            { 'data-testid': 'open-error', 'data-code': err.code },
            h('strong', { text: nameNotFound(near) }),
            h('p', { class: 'hint', text: t('didYouMean', { names: near.suggestions.join(t('or')) }) }),
          ),
        () => near.suggestions.map((n, i) => statusButton(t('connectTo', { name: n }), i === 0 ? 'primary' : '', () => host.rename(n))),
      );
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
      // A refused login: push an EC2 Instance Connect key only when the person says so, or change this instance's login.
      const login = detailsOf(err, 'AUTH_FAILED');
      const connectAs = host.connectAs;
      // Nothing reached sshd (SSH and the private paths failed): the serial console comes first.
      const serial = host.serialConsole && serialConsoleHelps(err) ? host.serialConsole : null;
      return [
        ...(serial ? [statusButton(serialWords('buttonFirst'), 'primary', serial)] : []),
        statusButton(t('retry'), serial ? '' : 'primary', () => host.retry()),
        ...(login?.instanceConnect === 'offer' ? [statusButton(t('eicPush'), '', () => host.retry({ eic: true }))] : []),
        ...(login?.instanceId && connectAs ? [statusButton(t('connectAs'), '', () => connectAs(login.instanceId!))] : []),
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
  tagJumpHosts: 'fieldTagJumpHosts',
};

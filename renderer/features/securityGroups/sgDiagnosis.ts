import type { AppErrorData } from '../../../src/common/errors.js';
import { hostCidr, TimeoutDetailsSchema, type SgDiagnosis } from '../../../src/common/securityGroups/diagnosis.js';
import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { describeError } from '../../i18n/errors.js';
import { t } from './messages.js';

// A connect that timed out, with what the security groups make of it: the diagnosis in the app's
// words and, when the user's IP is simply not allowed, an "Allow my IP" button that confirms
// (naming the address, port and group) and adds exactly that one address, then offers Retry.

/** The diagnosis a TIMEOUT error carries, or undefined (another error, or none could be made). */
export function timeoutDiagnosis(err: AppErrorData): SgDiagnosis | undefined {
  if (err.code !== 'TIMEOUT') return undefined;
  const parsed = TimeoutDetailsSchema.safeParse(err.details);
  return parsed.success ? parsed.data.securityGroups : undefined;
}

/** What the diagnosis view needs of the terminal tab that shows it. */
interface DiagnosisHost {
  api: Api;
  retry(): void;
  view(kind: 'info' | 'warn' | 'error', body: () => Node | string, actions?: () => HTMLElement[]): void;
  button(text: string, kind: string, onClick: () => void): HTMLButtonElement;
}

export function showSgDiagnosis(d: SgDiagnosis, host: DiagnosisHost): void {
  const retry = () => host.button(t('retry'), d.verdict === 'blocked' ? '' : 'primary', () => host.retry());
  host.view(
    'error',
    () => {
      const group = d.matchedGroupId ?? '';
      const [title, hint] =
        d.verdict === 'blocked'
          ? [t('blockedTitle', { ip: d.ip, port: d.port }), t('blockedHint', { groups: d.groupIds.join(', ') })]
          : d.verdict === 'allowed'
            ? [t('allowedTitle', { ip: d.ip, port: d.port, group }), t('allowedHint')]
            : [t('unknownTitle', { port: d.port, group }), t('unknownHint', { ip: d.ip })];
      return h('div', { 'data-testid': 'sg-diagnosis', 'data-verdict': d.verdict }, h('strong', { text: title }), h('p', { class: 'hint', text: hint }));
    },
    () => (d.verdict === 'blocked' ? [host.button(t('allowMyIp'), 'primary', () => void allow(d, host)), retry()] : [retry()]),
  );
}

async function allow(d: SgDiagnosis, host: DiagnosisHost): Promise<void> {
  const cidr = hostCidr(d.ip);
  // Several groups and none with an SSH rule: the person chooses which one gets it.
  const select = d.suggestedGroupId ? null : h('select', { class: 'sg-group' }, ...d.groupIds.map((g) => h('option', { value: g, text: g })));
  const groupOf = () => d.suggestedGroupId ?? select?.value ?? d.groupIds[0] ?? '';
  const body = h(
    'div',
    {},
    h('p', { 'data-testid': 'sg-allow-body', text: t('allowBody', { group: d.suggestedGroupId ?? '…', port: d.port, cidr }) }),
    select ? h('label', {}, `${t('allowGroup')} `, select) : '',
  );
  const ok = await confirmDialog({ title: t('allowTitle'), body, confirm: t('allowConfirm') });
  if (!ok) return;
  const groupId = groupOf();
  host.view('info', () => h('span', { text: t('adding', { group: groupId }) }));
  try {
    const r = await host.api.call('securityGroups.allowMyIp', { instanceId: d.instanceId, region: d.region, ip: d.ip, port: d.port, groupId });
    host.view(
      'info',
      () =>
        h('span', {
          'data-testid': 'sg-added',
          text: r.added ? t('added', { group: r.groupId, cidr: r.cidr, port: r.port }) : t('alreadyAllowed', { group: r.groupId, cidr: r.cidr, port: r.port }),
        }),
      () => [host.button(t('retry'), 'primary', () => host.retry())],
    );
  } catch (e) {
    const words = describeError(e as AppErrorData);
    host.view(
      'error',
      () =>
        h(
          'div',
          { 'data-testid': 'sg-add-failed' },
          h('strong', { text: t('addFailed') }),
          h('p', { text: words.title }),
          words.detail ? h('p', { class: 'detail', text: words.detail }) : null,
        ),
      () => [host.button(t('allowMyIp'), 'primary', () => void allow(d, host)), host.button(t('retry'), '', () => host.retry())],
    );
  }
}

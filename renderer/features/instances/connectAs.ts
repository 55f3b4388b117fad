import { InstanceLoginSchema, type InstanceLogin } from '../../../src/common/login.js';
import type { Settings } from '../../../src/common/model/settings.js';
import { h } from '../../lib/dom.js';
import { t } from './messages.js';

// "Connect as…": one instance's own login user, key file and port, kept in Settings by instance
// id (paths and names only, never a secret). In the one login order (src/common/login.ts) it comes
// right after what is typed (user@NAME) and before the instance's tags, Settings and the AMI.

interface ConnectAsDeps {
  instanceId: string;
  /** The instance as the person knows it: its Name, else the id. */
  label: string;
  settings(): Settings;
  save(next: Settings): Promise<void>;
  /** After saving: `connect` when the person pressed "Save and connect". */
  saved?(connect: boolean): void;
}

export function openConnectAs(deps: ConnectAsDeps): HTMLDialogElement {
  const current: InstanceLogin = deps.settings().connectAs[deps.instanceId] ?? {};
  const s = deps.settings();
  const field = (id: string, label: string, value: string, placeholder: string, type = 'text') => {
    const input = h('input', { id, type, value, placeholder, spellcheck: 'false', autocomplete: 'off' });
    return { input, el: h('div', { class: 'field' }, h('label', { for: id, text: label }), input) };
  };
  const user = field('connect-as-user', t('caUser'), current.user ?? '', s.defaultUser ?? t('caUserPh'));
  const key = field('connect-as-key', t('caKey'), current.identityFile ?? '', s.identityFile ?? t('caKeyPh'));
  const port = field('connect-as-port', t('caPort'), current.port ? String(current.port) : '', String(s.port), 'number');
  const message = h('p', { class: 'form-message', role: 'status' });
  const read = (): InstanceLogin | null => {
    const raw: Record<string, unknown> = {};
    if (user.input.value.trim()) raw.user = user.input.value.trim();
    if (key.input.value.trim()) raw.identityFile = key.input.value.trim();
    if (port.input.value.trim()) raw.port = Number(port.input.value);
    const parsed = InstanceLoginSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const bad = String(parsed.error.issues[0]?.path[0] ?? '');
    const input = bad === 'user' ? user.input : bad === 'port' ? port.input : key.input;
    input.setAttribute('aria-invalid', 'true');
    input.focus();
    message.className = 'form-message error';
    message.textContent = bad === 'user' ? t('caBadUser') : bad === 'port' ? t('caBadPort') : t('caBadKey');
    return null;
  };
  const store = async (choice: InstanceLogin | null, connect: boolean) => {
    const next = { ...deps.settings().connectAs };
    if (choice && Object.keys(choice).length) next[deps.instanceId] = choice;
    else delete next[deps.instanceId];
    try {
      await deps.save({ ...deps.settings(), connectAs: next });
    } catch (e) {
      message.className = 'form-message error';
      message.textContent = (e as Error).message;
      return;
    }
    dlg.close();
    deps.saved?.(connect);
  };
  const button = (text: string, cls: string, onClick: () => void) => h('button', { class: `btn ${cls}`.trim(), type: 'button', text, onClick });
  const dlg = h(
    'dialog',
    { class: 'dialog connect-as', 'aria-label': t('caTitle', { label: deps.label }) },
    h('h2', { text: t('caTitle', { label: deps.label }) }),
    h('p', { class: 'muted', text: t('caNote') }),
    user.el,
    key.el,
    port.el,
    message,
    h(
      'div',
      { class: 'dialog-actions' },
      button(t('caForget'), 'subtle', () => void store(null, false)),
      button(t('cancel'), '', () => dlg.close()),
      button(t('caSave'), '', () => {
        const c = read();
        if (c) void store(c, false);
      }),
      button(t('caSaveConnect'), 'primary', () => {
        const c = read();
        if (c) void store(c, true);
      }),
    ),
  );
  dlg.addEventListener('close', () => dlg.remove());
  document.body.append(dlg);
  dlg.showModal();
  user.input.focus();
  return dlg;
}

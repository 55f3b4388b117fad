import { h } from './dom.js';
import { defineMessages } from '../i18n/index.js';

const t = defineMessages({ en: { cancel: 'Cancel' }, ja: { cancel: 'キャンセル' } });

// Modal confirmation built on <dialog>: focus is trapped by the browser, Escape cancels.

interface ConfirmOptions {
  title: string;
  body: Node | string;
  confirm: string;
  cancel?: string;
  danger?: boolean;
}

export function confirmDialog(opts: ConfirmOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const ok = h('button', { class: opts.danger ? 'btn danger' : 'btn primary', type: 'submit', value: 'ok', text: opts.confirm });
    const dlg = h(
      'dialog',
      { class: 'dialog', 'aria-label': opts.title },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { text: opts.title }),
        h('div', { class: 'dialog-body' }, opts.body),
        h('div', { class: 'dialog-actions' }, h('button', { class: 'btn', type: 'submit', value: 'cancel', text: opts.cancel ?? t('cancel') }), ok),
      ),
    );
    dlg.addEventListener('close', () => {
      resolve(dlg.returnValue === 'ok');
      dlg.remove();
    });
    document.body.append(dlg);
    dlg.showModal();
    ok.focus();
  });
}

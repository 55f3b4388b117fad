import type { ImportPlan } from '../../../src/common/import/contract.js';
import { h } from '../../lib/dom.js';
import { t } from './messages.js';
import { keyStatus, noteText, rowNotes, settingsText, sourceOf } from './words.js';

// What an import would do, as the Import dialog shows it: the hosts found and what each matched,
// the host keys, the notes, a summary, and a word on the passwords left out.

/** Pure rendering of a plan: the nodes to show, and how many instances Import would write. */
export function planNodes(p: ImportPlan): { nodes: Node[]; instances: number } {
  const out: Node[] = [];
  const head = (...cols: string[]) => h('thead', {}, h('tr', {}, ...cols.map((c) => h('th', { text: c }))));
  out.push(
    h(
      'table',
      { class: 'import-rows', 'data-testid': 'import-rows' },
      head(t('colSource'), t('colFound'), t('colInstance'), t('colAs'), t('colNotes')),
      h(
        'tbody',
        {},
        ...p.rows.map((r) =>
          h(
            'tr',
            { 'data-testid': 'import-row', 'data-status': r.status, class: r.status },
            h('td', { text: sourceOf(r.at) }),
            h('td', { text: r.found }),
            h('td', { text: r.instance ? `${r.instance.name ?? '—'} (${r.instance.id})` : '—' }),
            h('td', { text: settingsText(r.settings) }),
            h('td', { text: rowNotes(r, p) }),
          ),
        ),
      ),
    ),
  );
  if (p.knownHosts.length) {
    out.push(
      h('h3', { text: t('hostKeys') }),
      h(
        'table',
        { class: 'import-keys', 'data-testid': 'import-keys' },
        h(
          'tbody',
          {},
          ...p.knownHosts.map((k) =>
            h(
              'tr',
              { 'data-status': k.status },
              h('td', { text: sourceOf(k.at) }),
              h('td', { text: `${k.name ?? '—'} (${k.instanceId})` }),
              h('td', { text: `${k.keyType} ${k.fingerprint}` }),
              h('td', { text: keyStatus(k) }),
            ),
          ),
        ),
      ),
    );
  }
  const notes = p.notes.filter((n) => n.code !== 'password-found');
  if (notes.length)
    out.push(h('h3', { text: t('notes') }), h('ul', { class: 'import-notes' }, ...notes.map((n) => h('li', { text: `${sourceOf(n.at)}: ${noteText(n)}` }))));
  const mapped = p.rows.filter((r) => r.status === 'mapped');
  const instances = new Set(mapped.map((r) => r.instance!.id)).size;
  out.push(
    h('p', {
      'data-testid': 'import-summary',
      text: t('summary', {
        hosts: p.rows.length,
        files: p.files.length,
        mapped: mapped.length,
        instances,
        regions: p.regions.join(', '),
        unmapped: p.rows.length - mapped.length,
      }),
    }),
  );
  if (p.passwordsFound) out.push(h('p', { class: 'hint', 'data-testid': 'import-passwords', text: t('passwords', { n: p.passwordsFound }) }));
  return { nodes: out, instances };
}

import type { Candidate } from '../../../src/common/model/instance.js';
import { h } from '../../lib/dom.js';
import { formatDateTime } from '../../i18n/index.js';
import { instanceStateWord } from '../../i18n/instanceState.js';
import { t } from './messages.js';
import type { StatusBar } from './statusBar.js';

// Several instances carry the name that was asked for: the person picks one (id, state, zone,
// launch time) and the open goes on with it.

export function pickCandidate(status: StatusBar, label: string, candidates: Candidate[], pick: (c: Candidate) => void): void {
  status.view('warn', () =>
    h(
      'div',
      { 'data-testid': 'candidates' },
      h('strong', { text: t('ambiguous', { label }) }),
      h('p', { text: t('pickOne') }),
      h(
        'ul',
        { class: 'candidates' },
        ...candidates.map((c) =>
          h(
            'li',
            {},
            h('button', {
              class: 'btn',
              type: 'button',
              text: [
                c.id,
                instanceStateWord(c.state),
                c.az ?? c.region,
                c.launchTime ? t('launched', { time: formatDateTime(Date.parse(c.launchTime)) }) : null,
              ]
                .filter(Boolean)
                .join(' · '),
              onClick: () => pick(c),
            }),
          ),
        ),
      ),
    ),
  );
}

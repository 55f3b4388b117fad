import type { ConfirmationInfo, PresetInfo } from '../../../src/common/bench/contract.js';
import { h } from '../../lib/dom.js';
import { confirmDialog } from '../../lib/dialog.js';
import { formatBytes } from '../../lib/bytes.js';
import { confirmationText, t, type BenchMessage } from './messages.js';
import { presetTitle } from './presetWords.js';

// Before a run that installs, writes, uploads or needs sudo: the person is asked, each thing said.

const confirmKind: Record<string, BenchMessage> = { install: 'confirmInstall', write: 'confirmWrite', sudo: 'confirmSudo', upload: 'confirmUpload' };

/** Asks to confirm what the run will do; true when confirmed. */
export function confirmRun(p: PresetInfo, confirmations: ConfirmationInfo[], tarball: { name: string; size: number } | undefined): Promise<boolean> {
  return confirmDialog({
    title: t('runConfirmTitle', { title: presetTitle(p) }),
    body: h(
      'ul',
      {},
      ...confirmations.map((c) =>
        h('li', {
          text: `${t(confirmKind[c.kind] ?? 'confirmWrite')}: ${c.kind === 'upload' && tarball ? t('uploadConfirm', { file: tarball.name, size: formatBytes(tarball.size) }) : confirmationText(c.say)}`,
        }),
      ),
    ),
    confirm: t('runConfirm'),
    cancel: t('cancel'),
  });
}

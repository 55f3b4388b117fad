import type { AppErrorData } from '../../../src/common/errors.js';
import { serialConsoleDetailsOf } from '../../../src/common/serialConsole/rules.js';
import type { ErrorWords } from '../../i18n/errorWords.js';
import { t } from './messages.js';

// The app's words for a serial console error, from its details (src/common/serialConsole/rules.ts);
// the backend's English stays as the detail line.

export function describeSerialConsoleError(err: AppErrorData): ErrorWords | null {
  const d = serialConsoleDetailsOf(err);
  if (!d) return null;
  const region = d.region ?? '';
  switch (d.serialConsole) {
    case 'disabled':
      return { title: t('disabled', { region }), hint: t('disabledHint', { region }), detail: null, field: null };
    case 'unsupported-type':
      return { title: t('unsupportedType', { type: d.instanceType ?? '' }), hint: t('unsupportedTypeHint'), detail: err.message, field: null };
    case 'access-denied':
      return { title: t('denied', { permission: d.permission ?? '' }), hint: t('deniedHint'), detail: err.message, field: 'profile' };
    case 'unknown-region':
      return { title: t('unknownRegion', { region }), hint: t('unknownRegionHint', { region }), detail: err.message, field: null };
    case 'host-key-mismatch':
      return { title: t('mismatch', { region }), hint: t('mismatchHint'), detail: err.message, field: null };
    case 'fingerprints-file':
      return { title: t('fingerprintsFile'), hint: t('fingerprintsFileHint'), detail: err.message, field: null };
    case 'busy':
      return { title: t('busy'), hint: t('busyHint'), detail: err.message, field: null };
  }
}

import { AppError, type AppErrorData } from '../../../src/common/errors.js';
import { detailsAs, FileErrorDetailsSchema } from '../../../src/common/errorDetails.js';
import { describeError } from '../../i18n/errors.js';
import { t } from './messages.js';
import { shown } from './shown.js';

/** An error in the panel's words (the server's path shown escaped). */
export function fileErrorText(e: unknown): string {
  const err: AppErrorData =
    e instanceof AppError ? e : typeof e === 'object' && e && 'code' in e ? (e as AppErrorData) : { code: 'INTERNAL', message: String(e) };
  const d = detailsAs(err, FileErrorDetailsSchema) ?? {};
  const path = shown(d.path ?? '');
  if (d.fileError === 'noSuchFile' || err.code === 'NOT_FOUND') return t('errNoSuchFile', { path });
  if (d.fileError === 'permissionDenied' || d.reason === 'permission') return t('errPermission', { path });
  if (d.fileError === 'exists') return t('errExists', { path });
  if (d.fileError === 'notEmpty') return t('errNotEmpty', { path });
  if (d.fileError === 'cwdUnknown') return t('errCwd');
  if (err.code === 'SESSION_CLOSED') return t('errSession');
  // The file API's own refusals (a folder that is not empty…) name the path in their message.
  if (err.code === 'INVALID_INPUT' && d.path) return shown(err.message);
  const w = describeError(err);
  return shown([w.title, w.detail].filter(Boolean).join(' '));
}

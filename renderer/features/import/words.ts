import type { ImportPlan, ImportRow, KnownHostImport } from '../../../src/common/import/contract.js';
import { t } from './messages.js';

// The import plan in the app's words: what each row matched by, why one did not, the notes on
// files. The plan carries codes and data (src/common/import/contract.ts); these are the words.

const BY: Record<NonNullable<ImportRow['matchedBy']>, Parameters<typeof t>[0]> = {
  'public-ip': 'byPublic',
  'elastic-ip': 'byElastic',
  'private-ip': 'byPrivate',
  dns: 'byDns',
  name: 'byName',
  'instance-id': 'byId',
};

const REASON: Record<NonNullable<ImportRow['reason']>['code'], Parameters<typeof t>[0]> = {
  'not-ssh': 'notSsh',
  'unknown-host': 'unknownHost',
  'not-ec2': 'notEc2',
  'no-address-match': 'noAddress',
  'no-name-match': 'noName',
  ambiguous: 'ambiguous',
  'lookup-unresolved': 'lookupUnresolved',
  'lookup-no-filter': 'lookupNoFilter',
  'region-not-chosen': 'regionNotChosen',
  'no-instance': 'noInstance',
};

const NOTE: Record<string, Parameters<typeof t>[0]> = {
  encoding: 'encoding',
  'include-missing': 'includeMissing',
  'include-too-deep': 'includeTooDeep',
  syntax: 'syntax',
  budget: 'budget',
  'skipped-file': 'skippedFile',
  'tagssh-block': 'tagsshBlock',
  'ssh1-key': 'ssh1Key',
  'known-hosts-skipped': 'knownHostsSkipped',
  'password-file': 'passwordFile',
};

const ENCODING: Record<string, string> = { shift_jis: 'Shift_JIS', 'utf-8-bom': 'UTF-8 (BOM)', 'utf-16le': 'UTF-16LE', 'utf-16be': 'UTF-16BE' };

export const sourceOf = (at: { file: string; line: number }) => `${at.file}:${at.line}`;

export function settingsText(s: ImportRow['settings']): string {
  if (!s) return '';
  return [s.user, s.port ? `:${s.port}` : '', s.identityFile ? ` ${s.identityFile}` : '', s.auth ? ` (${s.auth})` : ''].join('').trim();
}

export function rowNotes(r: ImportRow, plan: ImportPlan): string {
  const regions = plan.regions.join(', ');
  const n: string[] = [];
  if (r.matchedBy) n.push(t(BY[r.matchedBy]));
  if (r.reason) n.push(t(REASON[r.reason.code], { detail: r.reason.detail ?? '', regions }));
  if (r.sameAs !== undefined) n.push(t('sameAs', { source: sourceOf(plan.rows[r.sameAs]!.at) }));
  if (r.passwordLeftOut) n.push(t('passwordLeftOut'));
  if (r.status === 'mapped' && r.keyFile && !r.keyFile.found) n.push(t('keyNotFound', { path: r.keyFile.written }));
  if (r.status === 'mapped' && r.defaults?.length) n.push(t('fromIni', { fields: r.defaults.join(', ') }));
  if (r.profile) n.push(t('otherProfile', { profile: r.profile }));
  return n.join('; ');
}

export function keyStatus(k: KnownHostImport): string {
  return t(k.status === 'new' ? 'keyNew' : k.status === 'same' ? 'keySame' : 'keyConflict');
}

export function noteText(n: ImportPlan['notes'][number]): string {
  const key = NOTE[n.code];
  if (!key) return n.code;
  return t(key, { detail: n.code === 'encoding' ? (ENCODING[n.detail ?? ''] ?? n.detail ?? '') : (n.detail ?? '') });
}

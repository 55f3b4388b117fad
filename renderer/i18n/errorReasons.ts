import type { AppErrorData } from '../../src/common/errors.js';
import { reasonDetailsOf, type DetailsFor, type ReasonDetails } from '../../src/common/errorDetails.js';
import { defineMessages } from './index.js';
import type { ErrorField } from './errorWords.js';

// The app's words for the cause an engine error names (its `reason`, src/common/errorDetails.ts):
// the detail line under the title, in the person's language, with the names, addresses and AWS's
// own text kept verbatim. A reason whose remedy differs from its code's also says what to do,
// naming the app's controls. The CLI words the same reasons with its flags (src/node/cli/errorWords.ts).

const t = defineMessages({
  en: {
    'sso-expired': 'The SSO session for profile “{profile}” has expired or was never started.',
    'no-such-profile': 'AWS profile “{profile}” does not exist.',
    'no-credentials': 'No AWS credentials were found for profile “{profile}”.',
    noCredentialsDefault: 'No AWS credentials were found.',
    'credential-process-failed': 'The credential_process of AWS profile “{profile}” {how}{said}.',
    cpExit: 'failed (exit status {code})',
    cpSignal: 'was killed by {signal}',
    'cp_invalid-json': 'printed no JSON credentials',
    cp_version: 'printed credentials without "Version": 1',
    'cp_missing-keys': 'printed no AccessKeyId and SecretAccessKey',
    cp_expired: 'printed credentials that have already expired',
    cpSaid: ': {stderr}',
    cpSilent: ', printing nothing on stderr',
    credentialProcess_hint:
      'Run that profile’s credential_process command yourself to see what it needs (often a fresh login to the tool it calls), then try again, or choose another profile in Settings › AWS profile.',
    'no-enabled-regions': 'EC2 reports no enabled regions for this account.',
    'not-a-region': '“{region}” is not an AWS region.',
    didYouMean: 'Did you mean {names}?',
    or: ' or ',
    'one-region': 'This works in one region at a time.',
    'unknown-region': 'Cannot resolve {host}: is “{region}” a real region?',
    'region-not-enabled': 'Region {region} is not enabled for this account.',
    regionNotEnabled_hint: 'Enable it in the AWS console, or remove it from Settings › Regions.',
    'session-expired': 'Your AWS session credentials have expired ({awsCode}).',
    sessionOrClock: 'EC2 refused the request as expired ({awsCode}): the session credentials have expired, or this computer’s clock is off.',
    'credentials-rejected': 'AWS rejected the credentials ({awsCode}).',
    'aws-denied': '{service} denied access in {region}: {text}',
    'aws-error': '{service} error in {region}: {text}',
    'aws-request-failed': 'EC2 request failed in {region}: {text}',
    'lacks-permission': 'Your AWS role lacks {permission} in {region}.',
    'my-ip-lookup': 'Could not look up your public IP at {origin}: {text}.',
    myIpNotAnAddress: '{origin} did not answer with an IP address.',
    'no-such-name': 'No instance is named “{ref}”.',
    noSuchNameIn: 'No instance is named “{ref}” in {regions}.',
    noSuchNameInMany: 'No instance is named “{ref}” in any of the {count} regions searched.',
    regionSeparator: ', ',
    'pick-not-candidate': '{pick} is not an instance named {ref}.',
    stopped: '{ref} is not running.',
    'no-public-ip': '{label} has no public IP address.',
    privateIs: '(private: {privateIp})',
    noPublicIp_hint: 'Set a jump host in Settings › Jump host to connect to its private address through it.',
    'nothing-to-export': 'No instances to export in this profile and region.',
    'export-no-names': 'Choose the instances to export.',
    'export-no-such-name': 'No instance named “{ref}”.',
    'port-tag': 'The tagssh:port tag “{value}” is not a port number.',
    portTag_hint: 'Fix the tag on the instance (1–65535), or remove it to use Settings › SSH port.',
    'jump-loop': 'The jump chain to {label} is longer than {maxHops} hops (a loop?).',
    jumpLoop_hint: 'Check the instances’ tagssh:jump tags and Settings › Jump host.',
    'key-file': 'The key file {path} cannot be used.',
    keyFile_title: 'The key file cannot be read.',
    keyFile_hint: 'Choose your private key file (OpenSSH, PEM or PuTTY .ppk) in Settings › Default private key file, or with Connect as… for this instance.',
    'handshake-timeout': '{at} did not complete the SSH handshake within {seconds} s.',
    'ssh-refused': 'Connection refused by {at}: nothing accepts SSH on port {port}.',
    'ssh-timeout': 'Timed out connecting to {at}.',
    'ssh-unreachable': '{at} is unreachable ({netCode}).',
    sshUnreachable_hint: 'Check your network or VPN route to this address, or set a jump host in Settings › Jump host.',
    'ssh-failed': 'SSH connection to {at} failed: {text}.',
    'transport-both': 'Choose EC2 Instance Connect Endpoint or SSM, not both.',
  },
  ja: {
    'sso-expired': 'プロファイル「{profile}」の SSO セッションは期限切れか、まだ開始されていません。',
    'no-such-profile': 'AWS プロファイル「{profile}」は存在しません。',
    'no-credentials': 'プロファイル「{profile}」の AWS 認証情報が見つかりません。',
    noCredentialsDefault: 'AWS 認証情報が見つかりません。',
    'credential-process-failed': 'AWS プロファイル「{profile}」の credential_process が{how}{said}。',
    cpExit: '失敗しました（終了ステータス {code}）',
    cpSignal: '{signal} で強制終了されました',
    'cp_invalid-json': 'JSON の認証情報を出力しませんでした',
    cp_version: '"Version": 1 のない認証情報を出力しました',
    'cp_missing-keys': 'AccessKeyId と SecretAccessKey を出力しませんでした',
    cp_expired: '期限切れの認証情報を出力しました',
    cpSaid: '（標準エラー出力: {stderr}）',
    cpSilent: '（標準エラー出力には何も出力していません）',
    credentialProcess_hint:
      'そのプロファイルの credential_process のコマンドを自分で実行して、何が必要か（多くは呼び出すツールへの再ログイン）を確かめてから再試行するか、設定の「AWS プロファイル」で別のプロファイルを選んでください。',
    'no-enabled-regions': 'EC2 によると、このアカウントで有効なリージョンがありません。',
    'not-a-region': '「{region}」は AWS のリージョンではありません。',
    didYouMean: '{names} のことですか？',
    or: ' または ',
    'one-region': 'この操作は一度に 1 つのリージョンでしか行えません。',
    'unknown-region': '{host} の名前を解決できません。「{region}」は実在するリージョンですか？',
    'region-not-enabled': 'リージョン {region} はこのアカウントで有効になっていません。',
    regionNotEnabled_hint: 'AWS コンソールで有効にするか、設定の「リージョン」から外してください。',
    'session-expired': 'AWS のセッション認証情報の有効期限が切れています（{awsCode}）。',
    sessionOrClock: 'EC2 がリクエストを期限切れとして拒否しました（{awsCode}）。セッション認証情報の期限切れか、このコンピューターの時計のずれが原因です。',
    'credentials-rejected': 'AWS が認証情報を拒否しました（{awsCode}）。',
    'aws-denied': '{service} が {region} でアクセスを拒否しました: {text}',
    'aws-error': '{region} の {service} がエラーを返しました: {text}',
    'aws-request-failed': '{region} の EC2 へのリクエストが失敗しました: {text}',
    'lacks-permission': 'AWS のロールに {region} での {permission} の権限がありません。',
    'my-ip-lookup': '{origin} でパブリック IP を調べられませんでした: {text}',
    myIpNotAnAddress: '{origin} は IP アドレスを返しませんでした。',
    'no-such-name': '「{ref}」という名前のインスタンスはありません。',
    noSuchNameIn: 'リージョン {regions} に「{ref}」という名前のインスタンスはありません。',
    noSuchNameInMany: '検索した {count} のリージョンのどこにも「{ref}」という名前のインスタンスはありません。',
    regionSeparator: '、',
    'pick-not-candidate': '{pick} は {ref} という名前のインスタンスではありません。',
    stopped: '{ref} は実行されていません。',
    'no-public-ip': '{label} にはパブリック IP アドレスがありません。',
    privateIs: '（プライベート: {privateIp}）',
    noPublicIp_hint: '設定の「踏み台ホスト」を設定すると、踏み台ホスト経由でプライベートアドレスに接続します。',
    'nothing-to-export': 'このプロファイルとリージョンには書き出すインスタンスがありません。',
    'export-no-names': '書き出すインスタンスを選んでください。',
    'export-no-such-name': '「{ref}」という名前のインスタンスはありません。',
    'port-tag': 'tagssh:port タグの値「{value}」はポート番号ではありません。',
    portTag_hint: 'インスタンスのタグを修正するか（1〜65535）、タグを外して設定の「SSH ポート」を使ってください。',
    'jump-loop': '{label} までの踏み台の連鎖が {maxHops} 段を超えています（ループしていませんか？）。',
    jumpLoop_hint: 'インスタンスの tagssh:jump タグと設定の「踏み台ホスト」を確認してください。',
    'key-file': '鍵ファイル {path} を使えません。',
    keyFile_title: '鍵ファイルを読み込めません。',
    keyFile_hint: '秘密鍵ファイル（OpenSSH・PEM・PuTTY .ppk）を設定の「既定の秘密鍵ファイル」か、このインスタンスの「接続ユーザー…」で選んでください。',
    'handshake-timeout': '{at} との SSH ハンドシェイクが {seconds} 秒以内に完了しませんでした。',
    'ssh-refused': '{at} に接続を拒否されました。ポート {port} で SSH を受け付けているものがありません。',
    'ssh-timeout': '{at} への接続がタイムアウトしました。',
    'ssh-unreachable': '{at} に到達できません（{netCode}）。',
    sshUnreachable_hint: 'このアドレスへのネットワークや VPN の経路を確認するか、設定の「踏み台ホスト」を設定してください。',
    'ssh-failed': '{at} への SSH 接続に失敗しました: {text}。',
    'transport-both': 'EC2 Instance Connect エンドポイントと SSM は、どちらか一方を選んでください。',
  },
});

/** What the app says of a reason: the detail line, and a title, hint or Settings field where the code's own do not fit. */
interface ReasonWords {
  detail: string;
  title?: string;
  hint?: string;
  field?: ErrorField | null;
}

/**
 * "No instance is named “web-9” in eu-west-1.": the regions searched, so a person looking in the
 * wrong one can tell; more than three are counted, as the CLI's message does.
 */
export function nameNotFound(d: DetailsFor<'no-such-name'>): string {
  if (!d.regions.length) return t('no-such-name', { ref: d.ref });
  if (d.regions.length > 3) return t('noSuchNameInMany', { ref: d.ref, count: d.regions.length });
  return t('noSuchNameIn', { ref: d.ref, regions: d.regions.join(t('regionSeparator')) });
}

function detailOf(d: ReasonDetails): string {
  switch (d.reason) {
    case 'no-credentials':
      return d.profile === null ? t('noCredentialsDefault') : t('no-credentials', { profile: d.profile });
    case 'not-a-region':
      return d.meant.length
        ? `${t('not-a-region', { region: d.region })} ${t('didYouMean', { names: d.meant.join(t('or')) })}`
        : t('not-a-region', { region: d.region });
    case 'unknown-region':
      return t('unknown-region', { host: d.host ?? d.region, region: d.region });
    case 'session-expired':
      return d.clockUnsure ? t('sessionOrClock', { awsCode: d.awsCode }) : t('session-expired', { awsCode: d.awsCode });
    case 'my-ip-lookup':
      return d.text === null ? t('myIpNotAnAddress', { origin: d.origin }) : t('my-ip-lookup', { origin: d.origin, text: d.text });
    case 'no-such-name':
      return d.suggestions.length ? `${nameNotFound(d)} ${t('didYouMean', { names: d.suggestions.join(t('or')) })}` : nameNotFound(d);
    case 'no-public-ip':
      return d.privateIp ? `${t('no-public-ip', { label: d.label })} ${t('privateIs', { privateIp: d.privateIp })}` : t('no-public-ip', { label: d.label });
    case 'export-no-such-name':
      return d.suggestions.length
        ? `${t('export-no-such-name', { ref: d.ref })} ${t('didYouMean', { names: d.suggestions.join(t('or')) })}`
        : t('export-no-such-name', { ref: d.ref });
    case 'credential-process-failed': {
      const how = d.output ? t(`cp_${d.output}`) : d.signal ? t('cpSignal', { signal: d.signal }) : t('cpExit', { code: d.exitCode ?? '?' });
      const said = d.stderr ? t('cpSaid', { stderr: d.stderr }) : d.output ? '' : t('cpSilent');
      return t('credential-process-failed', { profile: d.profile, how, said });
    }
    case 'no-region':
      return '';
    default: {
      const { reason, ...values } = d;
      return t(reason, values as Record<string, string | number>);
    }
  }
}

const REMEDY: Partial<Record<ReasonDetails['reason'], Omit<ReasonWords, 'detail'>>> = {
  'region-not-enabled': { hint: 'regionNotEnabled_hint', field: 'regions' },
  'no-public-ip': { hint: 'noPublicIp_hint', field: 'jumpHost' },
  'port-tag': { hint: 'portTag_hint', field: 'port' },
  'jump-loop': { hint: 'jumpLoop_hint', field: 'jumpHost' },
  'key-file': { title: 'keyFile_title', hint: 'keyFile_hint', field: 'identityFile' },
  'ssh-unreachable': { hint: 'sshUnreachable_hint', field: 'jumpHost' },
  'credential-process-failed': { hint: 'credentialProcess_hint', field: 'profile' },
};

/** The app's words for the reason an error names, or null when it names none the app knows. */
export function describeReason(err: AppErrorData): ReasonWords | null {
  const d = reasonDetailsOf(err);
  if (!d) return null;
  const out: ReasonWords = { detail: detailOf(d) };
  const remedy = REMEDY[d.reason];
  if (remedy?.title) out.title = t(remedy.title as Parameters<typeof t>[0]);
  if (remedy?.hint) out.hint = t(remedy.hint as Parameters<typeof t>[0]);
  if (remedy && 'field' in remedy) out.field = remedy.field ?? null;
  return out;
}

import type { AppErrorData, ErrorCode } from '../../src/common/errors.js';
import { detailsOf } from '../../src/common/errorDetails.js';
import { defineMessages } from './index.js';
import { describeTransportError } from '../features/transport/errors.js';

// The app's words for errors the backend reports. The backend sends a code, a message naming
// what failed (kept as the detail line) and details; its hint speaks the CLI's language
// (--identity, --profile), so the app never shows it for a code it knows: it says what to do
// with its own controls instead, and names the Settings field a button can open. Unknown codes
// fall back to the backend's own message and hint.

/** Settings fields an error can send the user to (the settings view's focusField names). */
export type ErrorField = 'profile' | 'regions' | 'defaultUser' | 'identityFile' | 'port' | 'jumpHost';

export interface ErrorWords {
  /** What happened, in the app's words. */
  title: string;
  /** What to do next, naming the app's controls. */
  hint: string | null;
  /** The backend's description (names the host, port, file…); null when the title already says it all. */
  detail: string | null;
  /** The Settings field that fixes it, for an "Open Settings" button; null when none does. */
  field: ErrorField | null;
}

const t = defineMessages({
  en: {
    AUTH_FAILED: 'The server refused the login.',
    AUTH_FAILED_hint:
      'Check the login user (Settings › Default login user, or the instance’s tagssh:user tag) and the key (Settings › Default private key file, or a key loaded into ssh-agent).',
    NO_CREDENTIALS: 'No AWS credentials for this profile.',
    NO_CREDENTIALS_hint: 'Choose another profile in Settings › AWS profile, or set up the profile with the AWS CLI (aws configure or aws sso login).',
    CREDENTIALS_EXPIRED: 'The AWS credentials have expired.',
    CREDENTIALS_EXPIRED_hint: 'Renew them (for SSO: aws sso login), or choose another profile in Settings › AWS profile.',
    ACCESS_DENIED: 'AWS denied the request.',
    ACCESS_DENIED_hint: 'Ask for the EC2 permissions this needs, or choose another profile in Settings › AWS profile.',
    BAD_REGION: 'A region in the settings is not valid.',
    BAD_REGION_hint: 'Fix the list in Settings › Regions.',
    NETWORK: 'AWS could not be reached.',
    NETWORK_hint: 'Check the network or proxy, then try again.',
    THROTTLED: 'AWS is throttling requests.',
    THROTTLED_hint: 'Wait a moment, then try again.',
    AWS_API: 'AWS reported an error.',
    AWS_API_hint: 'Try again; if it persists, check the instance in the EC2 console.',
    TIMEOUT: 'The instance did not answer in time.',
    TIMEOUT_hint:
      'Check its security group (SSH from your address) and network ACLs. For an instance in a private subnet, set a jump host in Settings › Jump host.',
    CONNECT_FAILED: 'Could not connect over SSH.',
    CONNECT_FAILED_hint: 'Check that sshd runs and listens on the SSH port (Settings › SSH port, or the instance’s tagssh:port tag), and the security group.',
    SESSION_CLOSED: 'The session is closed.',
    SESSION_CLOSED_hint: 'Reconnect when the instance is reachable.',
    REMOTE_FAILED: 'The server refused to open a shell.',
    REMOTE_FAILED_hint: 'It may limit sessions (MaxSessions); close other sessions to it and try again.',
    NOT_FOUND: 'Not found.',
    NOT_FOUND_hint: 'Refresh the instance list and pick the instance there.',
    INVALID_INPUT: 'A setting or tag is not valid.',
    INVALID_INPUT_hint: 'Fix the value named below (in Settings, or the instance’s tagssh: tags).',
    INTERNAL: 'Something went wrong inside TagSSH.',
    INTERNAL_hint: 'Try again; if it happens again, report it with what you did.',
    noPublicAddress: '{name} gets no public IP address, so TagSSH cannot connect to it directly.',
    noPublicAddressWhySubnet: 'It has no Elastic IP and its subnet {subnet} does not assign public addresses.',
    noPublicAddressWhyRunning: 'It is running without a public address.',
    noPublicAddress_hint: 'Set a jump host in Settings › Jump host: TagSSH then connects to its private address ({privateIp}) through it.',
    privateUnknown: 'unknown',
  },
  ja: {
    AUTH_FAILED: 'サーバーがログインを拒否しました。',
    AUTH_FAILED_hint:
      'ログインユーザー（設定の「既定のログインユーザー」、またはインスタンスの tagssh:user タグ）と鍵（設定の「既定の秘密鍵ファイル」、または ssh-agent に登録した鍵）を確認してください。',
    NO_CREDENTIALS: 'このプロファイルの AWS 認証情報がありません。',
    NO_CREDENTIALS_hint:
      '設定の「AWS プロファイル」で別のプロファイルを選ぶか、AWS CLI でプロファイルを設定してください（aws configure または aws sso login）。',
    CREDENTIALS_EXPIRED: 'AWS 認証情報の有効期限が切れています。',
    CREDENTIALS_EXPIRED_hint: '認証情報を更新するか（SSO の場合は aws sso login）、設定の「AWS プロファイル」で別のプロファイルを選んでください。',
    ACCESS_DENIED: 'AWS がリクエストを拒否しました。',
    ACCESS_DENIED_hint: '必要な EC2 の権限を管理者に依頼するか、設定の「AWS プロファイル」で別のプロファイルを選んでください。',
    BAD_REGION: '設定のリージョンが正しくありません。',
    BAD_REGION_hint: '設定の「リージョン」を修正してください。',
    NETWORK: 'AWS に接続できません。',
    NETWORK_hint: 'ネットワークやプロキシを確認して、もう一度お試しください。',
    THROTTLED: 'AWS がリクエストを制限しています。',
    THROTTLED_hint: 'しばらく待ってから、もう一度お試しください。',
    AWS_API: 'AWS がエラーを返しました。',
    AWS_API_hint: 'もう一度お試しください。続く場合は EC2 コンソールでインスタンスを確認してください。',
    TIMEOUT: 'インスタンスが時間内に応答しませんでした。',
    TIMEOUT_hint:
      'セキュリティグループ（接続元からの SSH）とネットワーク ACL を確認してください。プライベートサブネットのインスタンスには、設定の「踏み台ホスト」を設定してください。',
    CONNECT_FAILED: 'SSH で接続できませんでした。',
    CONNECT_FAILED_hint:
      'sshd が動いていて SSH ポート（設定の「SSH ポート」、またはインスタンスの tagssh:port タグ）で待ち受けているか、セキュリティグループとあわせて確認してください。',
    SESSION_CLOSED: 'セッションは閉じています。',
    SESSION_CLOSED_hint: 'インスタンスに接続できるようになったら再接続してください。',
    REMOTE_FAILED: 'サーバーがシェルを開けませんでした。',
    REMOTE_FAILED_hint: 'セッション数が制限されている可能性があります（MaxSessions）。ほかのセッションを閉じてから、もう一度お試しください。',
    NOT_FOUND: '見つかりません。',
    NOT_FOUND_hint: 'インスタンス一覧を更新して、そこからインスタンスを選んでください。',
    INVALID_INPUT: '設定またはタグの値が正しくありません。',
    INVALID_INPUT_hint: '下に示す値を修正してください（設定、またはインスタンスの tagssh: タグ）。',
    INTERNAL: 'TagSSH の内部でエラーが起きました。',
    INTERNAL_hint: 'もう一度お試しください。繰り返す場合は、操作内容を添えて報告してください。',
    noPublicAddress: '{name} にはパブリック IP アドレスが割り当てられないため、直接接続できません。',
    noPublicAddressWhySubnet: 'Elastic IP がなく、サブネット {subnet} はパブリックアドレスを割り当てません。',
    noPublicAddressWhyRunning: 'パブリックアドレスなしで実行中です。',
    noPublicAddress_hint: '設定の「踏み台ホスト」を設定してください。TagSSH は踏み台ホスト経由でプライベートアドレス（{privateIp}）に接続します。',
    privateUnknown: '不明',
  },
});

// Codes with their own words here; the terminal tab handles AMBIGUOUS, STOPPED, the host-key
// codes and CANCELLED with dedicated prompts.
const KNOWN = [
  'AUTH_FAILED',
  'NO_CREDENTIALS',
  'CREDENTIALS_EXPIRED',
  'ACCESS_DENIED',
  'BAD_REGION',
  'NETWORK',
  'THROTTLED',
  'AWS_API',
  'TIMEOUT',
  'CONNECT_FAILED',
  'SESSION_CLOSED',
  'REMOTE_FAILED',
  'NOT_FOUND',
  'INVALID_INPUT',
  'INTERNAL',
] as const;
type Known = (typeof KNOWN)[number];

const FIELD: Partial<Record<ErrorCode, ErrorField>> = {
  AUTH_FAILED: 'identityFile',
  NO_CREDENTIALS: 'profile',
  CREDENTIALS_EXPIRED: 'profile',
  ACCESS_DENIED: 'profile',
  BAD_REGION: 'regions',
  TIMEOUT: 'jumpHost',
  CONNECT_FAILED: 'port',
};

/** True when the error says the instance has (or will have) no public address. */
export function isNoPublicAddress(err: AppErrorData): boolean {
  return detailsOf(err, 'NOT_FOUND') !== undefined;
}

/** The app's words for an error from the backend. */
export function describeError(err: AppErrorData): ErrorWords {
  const transport = describeTransportError(err);
  if (transport) return transport;
  const d = detailsOf(err, 'NOT_FOUND');
  if (d) {
    const name = d.name ?? d.instanceId;
    const why = d.started ? t('noPublicAddressWhyRunning') : t('noPublicAddressWhySubnet', { subnet: d.subnetId ?? '' });
    return {
      title: `${t('noPublicAddress', { name })} ${why}`,
      hint: t('noPublicAddress_hint', { privateIp: d.privateIp ?? t('privateUnknown') }),
      detail: null,
      field: 'jumpHost',
    };
  }
  if (!(KNOWN as readonly string[]).includes(err.code)) return { title: err.message, hint: err.hint ?? null, detail: null, field: null };
  const code = err.code as Known;
  return { title: t(code), hint: t(`${code}_hint`), detail: err.message, field: FIELD[code] ?? null };
}

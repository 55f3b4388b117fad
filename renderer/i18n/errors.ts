import type { AppErrorData, ErrorCode } from '../../src/common/errors.js';
import { detailsAs, detailsOf, TagJumpRefusedDetailsSchema, type AuthCause } from '../../src/common/errorDetails.js';
import { defineMessages } from './index.js';
import { describeTransportError } from '../features/transport/errors.js';
import { describeSerialConsoleError } from '../features/serialConsole/errors.js';
import { tagJumpEntry } from '../../src/common/jumpTag.js';
import { describeReason } from './errorReasons.js';
import type { ErrorField, ErrorWords } from './errorWords.js';
export type { ErrorField, ErrorWords } from './errorWords.js';

// The app's words for errors the backend reports. The backend sends a code, an English message
// and details naming the cause (a reason and its values); the app words the cause in the person's
// language as the detail line (errorReasons.ts), says what to do with its own controls, and names
// the Settings field a button can open. A known code without a known reason keeps the backend's
// message as the detail; unknown codes fall back to the backend's own message and hint.

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
    tagJumpRefused: 'The tag tagssh:jump={tag} on {name} sends the connection through {host}, a host outside EC2 that is not allowed; not connected.',
    tagJumpRefused_hint:
      'Anyone allowed to change tags can set this tag. If you trust {host}, add {entry} to Settings › Bastions tags may name; otherwise have the tag name a bastion instance (its Name or id).',
    INTERNAL: 'Something went wrong inside TagSSH.',
    INTERNAL_hint: 'Try again; if it happens again, report it with what you did.',
    noPublicAddress: '{name} gets no public IP address, so TagSSH cannot connect to it directly.',
    noPublicAddressWhySubnet: 'It has no Elastic IP and its subnet {subnet} does not assign public addresses.',
    noPublicAddressWhyRunning: 'It is running without a public address.',
    noPublicAddress_hint: 'Set a jump host in Settings › Jump host: TagSSH then connects to its private address ({privateIp}) through it.',
    privateUnknown: 'unknown',
    auth_refused: 'The server did not accept the key.',
    'auth_key-unreadable': 'The key file cannot be read.',
    'auth_key-format': 'The key file is not in a format TagSSH reads.',
    auth_ppk: 'This PuTTY key file cannot be read.',
    auth_passphrase: 'The key is locked and its passphrase was not given.',
    'auth_nothing-to-offer': 'There was no key to offer to the server.',
    'auth_password-refused': 'The server did not accept the password.',
    'auth_instance-connect-refused': 'The login was refused even with a key pushed by EC2 Instance Connect.',
    authHint_key:
      'Check that this key’s public half is in the user’s ~/.ssh/authorized_keys on the instance, or choose another key file (Settings › Default private key file, or Connect as… for this instance).',
    authHint_file: 'Choose your private key file (OpenSSH, PEM or PuTTY .ppk) in Settings › Default private key file, or with Connect as… for this instance.',
    authHint_ppk: 'Convert it to an OpenSSH key with PuTTYgen (Conversions › Export OpenSSH key), or run: puttygen {key} -O private-openssh -o {out}',
    authHint_passphrase: 'Connect again and enter the passphrase when the tab asks, or load the key into ssh-agent.',
    authHint_nothing: 'Choose a key file in Settings › Default private key file or with Connect as…, or load a key into ssh-agent.',
    authHint_password: 'Try again, or use a key (Connect as… › Private key file).',
    authHint_eic: 'Its AMI may lack EC2 Instance Connect (the ec2-instance-connect package), or the user does not exist there.',
    userFrom_flag: '“{user}” was typed as user@name; type another user, or set one with Connect as….',
    userFrom_instance: '“{user}” is this instance’s Connect as… choice; change it there if another user logs in.',
    userFrom_tag: '“{user}” comes from the instance’s tagssh:user tag; Connect as… sets another for this instance only.',
    userFrom_settings:
      '“{user}” came from Settings › Default login user. If this machine takes another user, set it with Connect as… (for this instance) or its tagssh:user tag.',
    userFrom_ami:
      '“{user}” was guessed from the AMI. If this machine takes another user, set it with Connect as…, Settings › Default login user, or its tagssh:user tag.',
    userFrom_default: 'Nothing named a user, so TagSSH tried “{user}”. Set the right one with Connect as… or Settings › Default login user.',
    amiRefused: 'The server refused the login as “{user}”, a user guessed from the AMI.',
    amiRefused_hint:
      'If this machine takes another user, set it with Connect as… (this instance only), Settings › Default login user, or its tagssh:user tag. If “{user}” is right, the key was refused: check that its public half is in that user’s ~/.ssh/authorized_keys on the instance, or choose another key file (Settings › Default private key file, or Connect as…).',
    noRegion: 'No AWS region is set.',
    noRegion_hint: 'Choose a region in the region picker above the list (or in Settings › Regions).',
    authDetail: '{label} refused the login as “{user}”; tried: {tried}.',
    triedNothing: 'nothing (no ssh-agent and no key file found)',
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
    tagJumpRefused: '{name} のタグ tagssh:jump={tag} は、許可されていない EC2 外のホスト {host} を経由させようとしています。接続しませんでした。',
    tagJumpRefused_hint:
      'このタグはタグを変更できる人なら誰でも設定できます。{host} を信頼できる場合は、設定の「タグで指定できる EC2 外の踏み台」に {entry} を追加してください。そうでなければ、タグには踏み台インスタンス（Name または ID）を指定してください。',
    INTERNAL: 'TagSSH の内部でエラーが起きました。',
    INTERNAL_hint: 'もう一度お試しください。繰り返す場合は、操作内容を添えて報告してください。',
    noPublicAddress: '{name} にはパブリック IP アドレスが割り当てられないため、直接接続できません。',
    noPublicAddressWhySubnet: 'Elastic IP がなく、サブネット {subnet} はパブリックアドレスを割り当てません。',
    noPublicAddressWhyRunning: 'パブリックアドレスなしで実行中です。',
    noPublicAddress_hint: '設定の「踏み台ホスト」を設定してください。TagSSH は踏み台ホスト経由でプライベートアドレス（{privateIp}）に接続します。',
    privateUnknown: '不明',
    auth_refused: 'サーバーが鍵を受け付けませんでした。',
    'auth_key-unreadable': '鍵ファイルを読み込めません。',
    'auth_key-format': '鍵ファイルが TagSSH の読める形式ではありません。',
    auth_ppk: 'この PuTTY 鍵ファイルを読み込めません。',
    auth_passphrase: '鍵がロックされていて、パスフレーズが入力されませんでした。',
    'auth_nothing-to-offer': 'サーバーに提示できる鍵がありませんでした。',
    'auth_password-refused': 'サーバーがパスワードを受け付けませんでした。',
    'auth_instance-connect-refused': 'EC2 Instance Connect で送った鍵でもログインを拒否されました。',
    authHint_key:
      'この鍵の公開鍵がインスタンスのユーザーの ~/.ssh/authorized_keys にあるか確認するか、別の鍵ファイルを選んでください（設定の「既定の秘密鍵ファイル」、またはこのインスタンスの「接続ユーザー…」）。',
    authHint_file: '秘密鍵ファイル（OpenSSH・PEM・PuTTY .ppk）を設定の「既定の秘密鍵ファイル」か、このインスタンスの「接続ユーザー…」で選んでください。',
    authHint_ppk:
      'PuTTYgen で OpenSSH 形式に変換するか（「変換」›「OpenSSH 形式の鍵をエクスポート」）、次を実行してください: puttygen {key} -O private-openssh -o {out}',
    authHint_passphrase: 'もう一度接続して、タブで求められたらパスフレーズを入力するか、鍵を ssh-agent に登録してください。',
    authHint_nothing: '設定の「既定の秘密鍵ファイル」か「接続ユーザー…」で鍵ファイルを選ぶか、ssh-agent に鍵を登録してください。',
    authHint_password: 'もう一度試すか、鍵を使ってください（「接続ユーザー…」›「秘密鍵ファイル」）。',
    authHint_eic: 'AMI に EC2 Instance Connect（ec2-instance-connect パッケージ）がないか、そのユーザーがインスタンスに存在しない可能性があります。',
    userFrom_flag: '「{user}」は user@名前 で指定されました。別のユーザーを入力するか、「接続ユーザー…」で設定してください。',
    userFrom_instance: '「{user}」はこのインスタンスの「接続ユーザー…」の設定です。別のユーザーでログインする場合はそこで変更してください。',
    userFrom_tag: '「{user}」はインスタンスの tagssh:user タグの値です。このインスタンスだけ別のユーザーにするには「接続ユーザー…」を使ってください。',
    userFrom_settings:
      '「{user}」は設定の「既定のログインユーザー」の値です。このマシンのユーザーが違う場合は、「接続ユーザー…」（このインスタンスだけ）か tagssh:user タグで設定してください。',
    userFrom_ami:
      '「{user}」は AMI から推定しました。このマシンのユーザーが違う場合は、「接続ユーザー…」、設定の「既定のログインユーザー」、または tagssh:user タグで設定してください。',
    userFrom_default: 'ユーザーの指定がないため「{user}」を試しました。「接続ユーザー…」か設定の「既定のログインユーザー」で正しいユーザーを設定してください。',
    amiRefused: 'サーバーが「{user}」でのログインを拒否しました。「{user}」は AMI から推定したユーザーです。',
    amiRefused_hint:
      'このマシンのユーザーが違う場合は、「接続ユーザー…」（このインスタンスだけ）、設定の「既定のログインユーザー」、または tagssh:user タグで設定してください。「{user}」で正しい場合は鍵が拒否されています。この鍵の公開鍵がインスタンスのそのユーザーの ~/.ssh/authorized_keys にあるか確認するか、別の鍵ファイルを選んでください（設定の「既定の秘密鍵ファイル」、または「接続ユーザー…」）。',
    noRegion: 'AWS のリージョンが設定されていません。',
    noRegion_hint: '一覧の上のリージョン選択（または設定の「リージョン」）でリージョンを選んでください。',
    authDetail: '{label} に「{user}」としてログインできませんでした。試したもの: {tried}',
    triedNothing: 'なし（ssh-agent も鍵ファイルも見つかりません）',
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

/**
 * AUTH_FAILED in the app's words: the real cause first, then what to change — never the source
 * that already chose the user. A user guessed from the AMI is the likelier culprit when the server
 * refuses (it cannot say whether the user or the key was wrong), so then the user leads.
 */
function describeLogin(err: AppErrorData): ErrorWords | null {
  const d = detailsOf(err, 'AUTH_FAILED');
  if (!d?.cause) return null;
  const detail = d.label ? t('authDetail', { label: d.label, user: d.user, tried: d.tried.length ? d.tried.join(', ') : t('triedNothing') }) : err.message;
  if (d.cause === 'refused' && d.userSource === 'ami')
    return { title: t('amiRefused', { user: d.user }), hint: t('amiRefused_hint', { user: d.user }), detail, field: 'defaultUser' };
  const key = d.keyFile ?? '';
  const title = d.cause === 'key-format' && d.ppk ? t('auth_ppk') : t(`auth_${d.cause}`);
  const userHint = t(`userFrom_${d.userSource ?? 'default'}`, { user: d.user });
  const hints: Record<AuthCause, string> = {
    refused: `${t('authHint_key')} ${userHint}`,
    'key-unreadable': t('authHint_file'),
    'key-format': d.ppk ? t('authHint_ppk', { key, out: `${key.replace(/\.ppk$/i, '')}.pem` }) : t('authHint_file'),
    passphrase: t('authHint_passphrase'),
    'nothing-to-offer': `${t('authHint_nothing')} ${userHint}`,
    'password-refused': `${t('authHint_password')} ${userHint}`,
    'instance-connect-refused': `${t('authHint_eic')} ${userHint}`,
  };
  return {
    title,
    hint: hints[d.cause],
    detail,
    field: d.cause === 'password-refused' || d.cause === 'instance-connect-refused' ? null : 'identityFile',
  };
}

/** The app's words for an error from the backend. */
export function describeError(err: AppErrorData): ErrorWords {
  const serial = describeSerialConsoleError(err);
  if (serial) return serial;
  const transport = describeTransportError(err);
  if (transport) return transport;
  const login = describeLogin(err);
  if (login) return login;
  if (err.code === 'BAD_REGION' && (err.details as { reason?: string } | undefined)?.reason === 'no-region')
    return { title: t('noRegion'), hint: t('noRegion_hint'), detail: null, field: 'regions' };
  const jump = err.code === 'INVALID_INPUT' ? detailsAs(err, TagJumpRefusedDetailsSchema) : undefined;
  if (jump) {
    const entry = tagJumpEntry(jump.host, jump.port);
    const name = jump.name ? `${jump.name} (${jump.instanceId})` : jump.instanceId;
    return {
      title: t('tagJumpRefused', { tag: jump.tag, name, host: jump.host }),
      hint: t('tagJumpRefused_hint', { host: jump.host, entry }),
      detail: null,
      field: 'tagJumpHosts',
    };
  }
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
  const reason = describeReason(err);
  if (!(KNOWN as readonly string[]).includes(err.code))
    return reason
      ? { title: reason.detail, hint: reason.hint ?? null, detail: null, field: reason.field ?? null }
      : { title: err.message, hint: err.hint ?? null, detail: null, field: null };
  const code = err.code as Known;
  return {
    title: reason?.title ?? t(code),
    hint: reason?.hint ?? t(`${code}_hint`),
    detail: reason?.detail ?? err.message,
    field: reason?.field !== undefined ? reason.field : (FIELD[code] ?? null),
  };
}

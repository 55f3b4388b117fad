import type { AppErrorData } from '../../../src/common/errors.js';
import { transportDetailsOf } from '../../../src/common/transportErrors.js';
import type { ErrorWords } from '../../i18n/errorWords.js';
import { defineMessages } from '../../i18n/index.js';

// The app's words for what the private-instance transports found missing: each names the piece
// (endpoint, managed node, security-group rule, permission) and what to do with the app's own
// controls, never CLI flags. The backend's English stays as the detail line.

const t = defineMessages({
  en: {
    transport: 'This instance has no public address, and TagSSH found no other way in.',
    transport_hint: 'Set a jump host in Settings › Jump host, create an EC2 Instance Connect Endpoint in its VPC, or install the SSM Agent on it.',
    eiceEndpoint: 'There is no EC2 Instance Connect Endpoint in this instance’s VPC{vpc}.',
    eiceEndpoint_hint: 'Create one in the VPC console (Endpoints › EC2 Instance Connect Endpoint), or set a jump host in Settings › Jump host.',
    ssmManagedNode: 'Systems Manager does not list this instance as a managed node.',
    ssmManagedNode_hint:
      'Install and start the SSM Agent and give the instance a role with AmazonSSMManagedInstanceCore, or set a jump host in Settings › Jump host.',
    jumpHost: 'The instance asks for a jump host, but none is set.',
    jumpHost_hint: 'Set one in Settings › Jump host, or change the instance’s tagssh:transport tag.',
    securityGroupRule: 'The EC2 Instance Connect Endpoint opened a tunnel, but the instance did not accept the connection.',
    securityGroupRule_hint: 'Allow the SSH port in the instance’s security group from the endpoint’s security group.',
    sshd: 'Session Manager reached the instance, but its agent could not connect to sshd there.',
    sshd_hint: 'On the instance, check that sshd is running and listens on the SSH port, and that no firewall on the instance blocks it.',
    permission: 'Your AWS role lacks {permission}.',
    permission_hint: 'Ask your administrator for {permission}, or choose another profile in Settings › AWS profile.',
  },
  ja: {
    transport: 'このインスタンスにはパブリックアドレスがなく、ほかの接続経路も見つかりませんでした。',
    transport_hint: '設定の「踏み台ホスト」を設定するか、VPC に EC2 Instance Connect エンドポイントを作成するか、インスタンスに SSM Agent を導入してください。',
    eiceEndpoint: 'このインスタンスの VPC{vpc} には EC2 Instance Connect エンドポイントがありません。',
    eiceEndpoint_hint: 'VPC コンソール（エンドポイント › EC2 Instance Connect エンドポイント）で作成するか、設定の「踏み台ホスト」を設定してください。',
    ssmManagedNode: 'Systems Manager はこのインスタンスをマネージドノードとして認識していません。',
    ssmManagedNode_hint:
      'SSM Agent を導入・起動し、AmazonSSMManagedInstanceCore を含むロールをインスタンスに付与するか、設定の「踏み台ホスト」を設定してください。',
    jumpHost: 'このインスタンスは踏み台ホスト経由の接続を求めていますが、踏み台ホストが設定されていません。',
    jumpHost_hint: '設定の「踏み台ホスト」を設定するか、インスタンスの tagssh:transport タグを変更してください。',
    securityGroupRule: 'EC2 Instance Connect エンドポイントのトンネルは開きましたが、インスタンスが接続を受け付けませんでした。',
    securityGroupRule_hint: 'インスタンスのセキュリティグループで、エンドポイントのセキュリティグループからの SSH ポートへの接続を許可してください。',
    sshd: 'Session Manager はインスタンスに届きましたが、そのエージェントが sshd に接続できませんでした。',
    sshd_hint: 'インスタンス上で sshd が起動して SSH ポートで待ち受けているか、インスタンス内のファイアウォールが妨げていないかを確認してください。',
    permission: 'AWS のロールに {permission} の権限がありません。',
    permission_hint: '管理者に {permission} の権限を依頼するか、設定の「AWS プロファイル」で別のプロファイルを選んでください。',
  },
});

const WORDS = {
  transport: ['transport', 'jumpHost'],
  'eice-endpoint': ['eiceEndpoint', 'jumpHost'],
  'ssm-managed-node': ['ssmManagedNode', 'jumpHost'],
  'jump-host': ['jumpHost', 'jumpHost'],
  'security-group-rule': ['securityGroupRule', null],
  sshd: ['sshd', null],
} as const;

/** The app's words for a transport error, or null when the error is not one. */
export function describeTransportError(err: AppErrorData): ErrorWords | null {
  const d = transportDetailsOf(err);
  if (!d) return null;
  if ('permission' in d)
    return {
      title: t('permission', { permission: d.permission }),
      hint: t('permission_hint', { permission: d.permission }),
      detail: err.message,
      field: 'profile',
    };
  const [key, field] = WORDS[d.missing];
  const vpc = d.vpcId ? ` (${d.vpcId})` : '';
  return { title: key === 'eiceEndpoint' ? t('eiceEndpoint', { vpc }) : t(key), hint: t(`${key}_hint`), detail: err.message, field };
}

import { defineMessages } from '../../i18n/index.js';

// The words of the "my IP changed" diagnosis shown when an SSH connect timed out, and of its
// "Allow my IP" button and confirmation.

export const t = defineMessages({
  en: {
    blockedTitle: 'Timed out: your IP {ip} is not allowed to reach port {port}.',
    blockedHint: 'Your public IP has probably changed since the security group ({groups}) was set up.',
    allowedTitle: 'Timed out, although security group {group} allows {ip} on port {port}.',
    allowedHint: 'The block is elsewhere: a network ACL, the route table, or a firewall on the instance.',
    unknownTitle: 'Timed out. Security group {group} allows port {port} from a prefix list or another security group.',
    unknownHint: 'TagSSH can’t tell whether {ip} is included; check that rule in the EC2 console.',
    allowMyIp: 'Allow my IP',
    retry: 'Retry',
    allowTitle: 'Allow SSH from your IP?',
    allowBody:
      'Adds an inbound rule to security group {group}: TCP port {port} from {cidr} (this one address only). The rule’s description says TagSSH added it, with your user name and today’s date.',
    allowGroup: 'Security group',
    allowConfirm: 'Add rule',
    adding: 'Adding the rule to {group}…',
    added: 'Rule added: {group} now allows {cidr} on port {port}. Retry to connect.',
    alreadyAllowed: '{cidr} was already allowed on port {port} ({group}). Retry to connect.',
    addFailed: 'The rule was not added.',
  },
  ja: {
    blockedTitle: 'タイムアウトしました。現在の IP アドレス {ip} からポート {port} への接続が許可されていません。',
    blockedHint: 'セキュリティグループ（{groups}）を設定した後で、パブリック IP アドレスが変わった可能性があります。',
    allowedTitle: 'タイムアウトしました。ただし、セキュリティグループ {group} は {ip} からポート {port} への接続を許可しています。',
    allowedHint: '原因は別の場所にあります。ネットワーク ACL、ルートテーブル、またはインスタンス上のファイアウォールを確認してください。',
    unknownTitle:
      'タイムアウトしました。セキュリティグループ {group} は、プレフィックスリストまたは別のセキュリティグループからのポート {port} への接続を許可しています。',
    unknownHint: '{ip} が含まれるかどうかは TagSSH では判断できません。EC2 コンソールでそのルールを確認してください。',
    allowMyIp: 'この IP を許可',
    retry: '再試行',
    allowTitle: '現在の IP アドレスからの SSH を許可しますか？',
    allowBody:
      'セキュリティグループ {group} にインバウンドルールを追加します：{cidr} から TCP ポート {port}（このアドレスのみ）。ルールの説明には、TagSSH が追加したこと、ユーザー名、今日の日付が入ります。',
    allowGroup: 'セキュリティグループ',
    allowConfirm: 'ルールを追加',
    adding: '{group} にルールを追加しています…',
    added: 'ルールを追加しました：{group} で {cidr} からポート {port} への接続を許可しました。「再試行」で接続してください。',
    alreadyAllowed: '{cidr} はすでにポート {port} で許可されています（{group}）。「再試行」で接続してください。',
    addFailed: 'ルールを追加できませんでした。',
  },
});

import { defineMessages } from '../../i18n/index.js';

// Words of the EC2 Serial Console in the app, English and Japanese: the buttons that open it, the
// lines it writes into its tab, and its errors (named with the app's controls and AWS's console,
// never CLI flags).

export const t = defineMessages({
  en: {
    button: 'Serial console',
    buttonShort: 'Serial',
    buttonTitle: 'Open the EC2 Serial Console of this instance (its serial port login prompt), for when its network or sshd is broken',
    buttonFirst: 'Open serial console',
    tabLabel: '{label} (serial console)',
    opened: 'EC2 Serial Console of {label}, through {endpoint}; its host key {fingerprint} is AWS’s published one for {region}.',
    openedOverride:
      'WARNING: the host key {fingerprint} of {endpoint} was checked against {file}, not AWS’s published fingerprints (TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE is set; it exists for tests).',
    loginHint: 'Press Enter if no login prompt shows; log in with a user that has a password (the serial console takes no SSH key).',
    refused: 'The instance refused the login.',
    refusedHint:
      'The serial console needs a user with a password. If none has one, connect over SSH or Session Manager and run sudo passwd USER, or recover the instance with EC2Rescue (the AWSSupport-ExecuteEC2Rescue automation).',
    disabled: 'EC2 Serial Console access is not enabled for this AWS account in {region}.',
    disabledHint:
      'An account administrator can allow it in the EC2 console: EC2 Dashboard › Settings › Data protection and security › EC2 Serial Console › Manage › Allow (or with the AWS CLI: aws ec2 enable-serial-console-access --region {region}).',
    unsupportedType: 'This instance type ({type}) has no EC2 Serial Console.',
    unsupportedTypeHint:
      'Only instances built on the Nitro System (t3, m5, c6i and later, and bare metal) have one. Change the instance type, or connect over SSH.',
    denied: 'Your AWS role lacks {permission}, which the serial console needs.',
    deniedHint:
      'Ask your administrator for ec2:GetSerialConsoleAccessStatus, ec2:DescribeInstanceTypes and ec2-instance-connect:SendSerialConsoleSSHPublicKey, or choose another profile in Settings › AWS profile.',
    unknownRegion: 'TagSSH has no published serial console host key for {region}, so it cannot check that endpoint.',
    unknownRegionHint: 'Use the serial console in the EC2 console for this instance, or a TagSSH release whose table lists {region}.',
    mismatch: 'Refused: the serial console endpoint’s host key is not the one AWS publishes for {region}.',
    mismatchHint: 'Someone may be intercepting the connection (a proxy, VPN or DNS answer that is not AWS). Do not log in; try from another network.',
    fingerprintsFile: 'The test-only serial console setting is not valid.',
    fingerprintsFileHint: 'Unset TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE (and TAGSSH_SERIAL_CONSOLE_ENDPOINT) in the environment TagSSH was started from.',
    busy: 'The serial console of this instance is in use.',
    busyHint: 'Only one session at a time; a closed one takes 30 seconds to end. Close the other session, wait, then retry.',
    dismiss: 'Dismiss',
  },
  ja: {
    button: 'シリアルコンソール',
    buttonShort: 'シリアル',
    buttonTitle: 'このインスタンスの EC2 シリアルコンソール（シリアルポートのログインプロンプト）を開きます。ネットワークや sshd が壊れているときに使います',
    buttonFirst: 'シリアルコンソールを開く',
    tabLabel: '{label}（シリアルコンソール）',
    opened: '{label} の EC2 シリアルコンソール（{endpoint} 経由）。ホストキー {fingerprint} は AWS が {region} 向けに公開しているものと一致しました。',
    openedOverride:
      '警告: {endpoint} のホストキー {fingerprint} は AWS の公開フィンガープリントではなく {file} と照合されました（TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE が設定されています。テスト専用です）。',
    loginHint:
      'ログインプロンプトが出ないときは Enter を押してください。パスワードのあるユーザーでログインします（シリアルコンソールでは SSH 鍵は使えません）。',
    refused: 'インスタンスがログインを拒否しました。',
    refusedHint:
      'シリアルコンソールにはパスワードのあるユーザーが必要です。どのユーザーにもない場合は、SSH か Session Manager で接続して sudo passwd ユーザー名 を実行するか、EC2Rescue（AWSSupport-ExecuteEC2Rescue オートメーション）で復旧してください。',
    disabled: 'この AWS アカウントでは {region} の EC2 シリアルコンソールへのアクセスが有効になっていません。',
    disabledHint:
      'アカウントの管理者が EC2 コンソールで許可できます: EC2 ダッシュボード › 設定 › データ保護とセキュリティ › EC2 シリアルコンソール › 管理 › 許可（AWS CLI では aws ec2 enable-serial-console-access --region {region}）。',
    unsupportedType: 'このインスタンスタイプ（{type}）には EC2 シリアルコンソールがありません。',
    unsupportedTypeHint:
      'シリアルコンソールがあるのは Nitro System 上のインスタンス（t3・m5・c6i 以降とベアメタル）だけです。インスタンスタイプを変更するか、SSH で接続してください。',
    denied: 'AWS のロールに、シリアルコンソールに必要な {permission} の権限がありません。',
    deniedHint:
      '管理者に ec2:GetSerialConsoleAccessStatus・ec2:DescribeInstanceTypes・ec2-instance-connect:SendSerialConsoleSSHPublicKey の権限を依頼するか、設定の「AWS プロファイル」で別のプロファイルを選んでください。',
    unknownRegion: 'TagSSH には {region} のシリアルコンソールの公開ホストキーがないため、そのエンドポイントを確認できません。',
    unknownRegionHint: 'このインスタンスには EC2 コンソールのシリアルコンソールを使うか、{region} が載った新しい TagSSH を使ってください。',
    mismatch: '拒否しました: シリアルコンソールのエンドポイントのホストキーが、AWS が {region} 向けに公開しているものと違います。',
    mismatchHint: '通信が傍受されている可能性があります（AWS ではないプロキシ・VPN・DNS の応答）。ログインせず、別のネットワークから試してください。',
    fingerprintsFile: 'テスト専用のシリアルコンソール設定が正しくありません。',
    fingerprintsFileHint: 'TagSSH を起動した環境で TAGSSH_SERIAL_CONSOLE_FINGERPRINTS_FILE（と TAGSSH_SERIAL_CONSOLE_ENDPOINT）を解除してください。',
    busy: 'このインスタンスのシリアルコンソールは使用中です。',
    busyHint: '同時に使えるのは 1 セッションだけで、閉じたセッションが終わるまで 30 秒かかります。ほかのセッションを閉じ、少し待ってから再試行してください。',
    dismiss: '閉じる',
  },
});

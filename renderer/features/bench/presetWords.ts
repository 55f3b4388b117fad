import { getLocale } from '../../i18n/index.js';

// The benchmark presets' own words in Japanese — titles, descriptions and parameter help — over
// the English that comes with the preset definitions.

/** Preset titles and descriptions in Japanese; English comes from the preset definitions. */
const PRESET_JA: Record<string, { title: string; description: string }> = {
  sysinfo: {
    title: 'システム情報',
    description: 'CPU モデル、vCPU 数、コアあたりのスレッド数、メモリ、カーネル、OS、仮想化、NIC ドライバーと速度、ENA の制限カウンター。読み取りのみです。',
  },
  cpufreq: {
    title: 'CPU 周波数',
    description: 'governor、利用できる governor、ドライバー、CPU ごとの現在・最小・最大周波数。performance governor への切り替え（sudo）と復元もできます。',
  },
  unixbench: {
    title: 'UnixBench',
    description:
      'byte-unixbench: ビルドツールを入れ、ソースを取得・ビルドして ./Run を実行します（1 並列と N 並列）。パスごとの index スコア。30〜60 分かかります。',
  },
  iperf3: {
    title: 'iperf3（2 台）',
    description:
      '2 台のインスタンス間の TCP 帯域、または UDP のパケット数/秒。相手で iperf3 サーバーを起動し（終了後は必ず停止）、こちらでクライアントを実行します。',
  },
  fio: { title: 'fio', description: 'fio（JSON）でランダム/シーケンシャルの読み書き: IOPS、帯域、完了レイテンシ p50/p99/p99.9。' },
  dd: { title: 'dd', description: 'dd でシーケンシャル書き込み（conv=fdatasync）と読み戻し。root ならページキャッシュを破棄してから読みます。' },
  smallfiles: { title: '小さなファイル', description: '新しいディレクトリに N 個のファイルを `touch` して削除: 作成・削除の ops/s と 1 操作あたりの ms。' },
  listing: { title: 'ディレクトリ一覧', description: 'ディレクトリの `ls -laR`（コールドとウォーム）とエントリ数: エントリ/秒とエントリあたりの ms。' },
  transfer: {
    title: '転送',
    description:
      'ファイル群（生成したもの、ディレクトリ、S3 のプレフィックス）を rsync、cp、並列 cp、aws s3 sync、aws s3 cp でコピー: 所要時間、ファイル/秒、MB/秒。コピーは検証（件数・バイト数・チェックサム）してから削除します。',
  },
};

export function presetTitle(p: { id: string; title: string }): string {
  return getLocale() === 'ja' ? (PRESET_JA[p.id]?.title ?? p.title) : p.title;
}

export function presetDescription(p: { id: string; description: string }): string {
  return getLocale() === 'ja' ? (PRESET_JA[p.id]?.description ?? p.description) : p.description;
}

/** Parameter help in Japanese (the names are the preset's field names); English comes from the schema. */
const PARAM_HELP_JA: Record<string, string> = {
  'sysinfo.lshw': 'インストールされていれば `lshw -short` も実行します（詳細には root が必要）。',
  'cpufreq.action': 'read: 確認のみ。set-performance: 全 CPU を performance governor に切り替え（sudo が必要）。restore: 下の governor に戻します。',
  'cpufreq.governor': 'restore 用: set-performance が記録した元の governor（facts.original_governor）。',
  'unixbench.source': 'ソースの取得元: git clone、tarball の URL、または TagSSH がアップロードするローカルの tarball。',
  'unixbench.gitUrl': 'Git リポジトリ（source=git）。',
  'unixbench.gitRef': 'チェックアウトするタグまたはブランチ（source=git）。',
  'unixbench.tarballUrl': 'tarball の URL（source=tarball）。',
  'unixbench.localTarball': 'アップロードする .tar.gz（source=upload）: このコンピューター上の 1 MiB 以下の通常ファイル。',
  'unixbench.install': 'gcc・make・perl がなければディストリビューションのパッケージマネージャーでインストールします（sudo）。',
  'unixbench.iterations': 'テストごとの繰り返し回数（./Run -i）。',
  'unixbench.copies': 'パスごとの並列数（./Run -c）をカンマ区切りで。"auto" は CPU 数。',
  'unixbench.tests': '空白区切りのテスト名（空なら標準の index セット）。例: "dhry2reg whetstone-double"。',
  'iperf3.mode': 'tcp: 帯域（bit/s）。udp: 小さなデータグラムでのパケット数/秒（-u -b 0 -l 64）。',
  'iperf3.duration': '送信する秒数（-t）。',
  'iperf3.parallel': 'クライアントの並列ストリーム数（-P）。',
  'iperf3.reverse': '逆方向: サーバーが送信し、クライアントが受信します（-R）。',
  'iperf3.port': '相手側サーバーのポート（-p）。セキュリティグループで許可が必要です。',
  'iperf3.bandwidth': 'UDP の目標ビットレート（-b）。0 は無制限。',
  'iperf3.length': 'UDP データグラムのサイズ（バイト、-l）。',
  'iperf3.address': '相手への接続方法: auto は同じ VPC ならプライベート IP、違えばパブリック IP。private / public で固定もできます。',
  'iperf3.serverBind':
    'クライアントが使うアドレスにサーバーをバインドします（-B）。1 つのインターフェースに複数のアドレスがある相手向け。NAT の背後のパブリック IP には使えません。',
  'fio.dir': 'テストするディレクトリ（/mnt/efs などのマウントポイント）。テストファイルは新しいサブディレクトリに作り、後で削除します。',
  'fio.template': 'I/O パターン（--rw）: ランダム/シーケンシャルの読み書き。',
  'fio.bs': 'ブロックサイズ（--bs）。IOPS なら 4k、スループットなら 1M など。',
  'fio.size': 'ジョブごとのファイルサイズ（--size）。',
  'fio.numjobs': '並列ジョブ数（--numjobs）。まとめて集計します（--group_reporting）。',
  'fio.iodepth': 'I/O の深さ（--iodepth）。1 より大きい値には libaio などの非同期エンジンが必要です。',
  'fio.ioengine': 'I/O エンジン（--ioengine）。',
  'fio.runtime': '実行する秒数（--runtime と --time_based）。',
  'fio.direct': 'ページキャッシュを使いません（--direct=1）。FUSE ファイルシステムには O_DIRECT を拒否するものがあります。',
  'dd.dir': 'テストするディレクトリ。テストファイルは新しいサブディレクトリに作り、後で削除します。',
  'dd.bs': 'ブロックサイズ（bs=）。',
  'dd.count': 'ブロック数（count=）。bs=1M count=1024 で 1 GiB を書き込みます。',
  'dd.direct': 'ページキャッシュも使いません（oflag=direct / iflag=direct）。',
  'smallfiles.dir': 'テストするディレクトリ（マウントポイント）。ファイルは新しいサブディレクトリに作り、後で削除します。',
  'smallfiles.count': '作成するファイル数。',
  'smallfiles.method': 'loop: ファイルごとに `touch`（手作業と同じ）。xargs: まとめて `touch`（ファイルシステムのコストのみ）。',
  'listing.dir': '再帰的に一覧するディレクトリ（ls -laR）。読み取りのみです。',
  'transfer.method': 'rsync: rsync -a。cp: cp -a。parallel: N 個のワーカーで cp（xargs -P）。s3-sync: aws s3 sync。s3-cp: aws s3 cp --recursive。',
  'transfer.from': 'コピー元: 既存のディレクトリか s3://バケット/プレフィックス（読み取りのみ）。空欄ならファイル群を生成します。',
  'transfer.to': 'コピー先: ディレクトリか s3://バケット/プレフィックス。新しいサブディレクトリ（プレフィックス）にコピーし、後で削除します。',
  'transfer.files': '生成するファイルの数。',
  'transfer.fileSize': '生成するファイル 1 個のサイズ（4k、64k、1M など）。',
  'transfer.workers': 'parallel: 同時に実行するコピーの数。',
  'transfer.endpoint': 'S3 のエンドポイント URL（aws --endpoint-url）。S3 互換サービス用。空欄なら AWS。',
  'transfer.region': 'S3 のリージョン（aws --region）。空欄ならインスタンスの設定に従います。',
  'transfer.profile': 'インスタンス上の AWS CLI プロファイル（aws --profile）。空欄なら既定（インスタンスロールなど）。',
  'transfer.credentialsFile': 'インスタンス上の AWS 認証情報ファイル（AWS_SHARED_CREDENTIALS_FILE）。パスだけを渡し、秘密情報はスクリプトに入りません。',
  'transfer.verify': 'コピー後に両側を比較します: ファイル数、バイト数、チェックサム。',
};

export function paramHelp(presetId: string, name: string, english: string): string {
  return getLocale() === 'ja' ? (PARAM_HELP_JA[`${presetId}.${name}`] ?? english) : english;
}

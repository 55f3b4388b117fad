import { formatWithUnit } from '../../../src/common/bench/format.js';
import { getLocale } from '../../i18n/index.js';

// Metric names and units in the app's language. Parsers name metrics in English (the CLI, the
// exports and stored results keep those names); the app words them for a Japanese reader here.
// Tool and test names (UnixBench's "Dhrystone 2 …", fio's clat p99, NIC counters) stay as the
// tools print them: they are what people search for.

const JA_NAMES: Record<string, string> = {
  vCPUs: 'vCPU 数',
  'Threads per core': 'コアあたりのスレッド数',
  'Cores per socket': 'ソケットあたりのコア数',
  Sockets: 'ソケット数',
  'CPU MHz (max or current)': 'CPU MHz（最大または現在）',
  Memory: 'メモリ',
  'Current frequency (min CPU)': '現在の周波数（最も低い CPU）',
  'Current frequency (avg)': '現在の周波数（平均）',
  'Scaling max frequency': 'スケーリング最大周波数',
  'Scaling min frequency': 'スケーリング最小周波数',
  'write (conv=fdatasync)': '書き込み（conv=fdatasync）',
  'write time': '書き込み時間',
  'bytes written': '書き込んだバイト数',
  'read back': '読み戻し',
  'read time': '読み取り時間',
  'entries listed': '一覧したエントリー数',
  'UDP received packets/s': 'UDP 受信パケット/s',
  'UDP sent packets/s': 'UDP 送信パケット/s',
  'UDP loss': 'UDP 損失率',
  'UDP jitter': 'UDP ジッター',
  'UDP received bitrate': 'UDP 受信ビットレート',
  'UDP packets': 'UDP パケット数',
  'UDP lost packets': 'UDP 損失パケット数',
  'TCP sent': 'TCP 送信',
  'TCP received': 'TCP 受信',
  'TCP retransmits': 'TCP 再送',
  'TCP mean RTT': 'TCP 平均 RTT',
  'wall time': '所要時間',
  'files/s': 'ファイル/s',
  throughput: 'スループット',
};

const JA_SIDE: Record<string, string> = { read: '読み取り', write: '書き込み' };

/** Patterns for names built from parts (fio's sides, small-file operations, UnixBench passes). */
const JA_RULES: [RegExp, (...g: string[]) => string][] = [
  [/^(read|write) IOPS$/, (s) => `${JA_SIDE[s]} IOPS`],
  [/^(read|write) bandwidth$/, (s) => `${JA_SIDE[s]}帯域`],
  [/^(read|write) clat (mean|p[\d.]+)$/, (s, p) => `${JA_SIDE[s]} clat ${p === 'mean' ? '平均' : p}`],
  [/^(\w+) ops\/s$/, (op) => `${op} 操作/s`],
  [/^(\w+) ms\/op$/, (op) => `${op} ms/操作`],
  [/^(\w+) total$/, (op) => `${op} 合計時間`],
  [/^(\w+) entries\/s$/, (pass) => `${pass} エントリー/s`],
  [/^(\w+) ms\/entry$/, (pass) => `${pass} ms/エントリー`],
  [/^Index score \((.+?)\)( partial)?$/, (copies, partial) => `インデックススコア（${copiesJa(copies)}）${partial ? '（一部）' : ''}`],
  [/^(.+) index \((.+?)\)$/, (test, copies) => `${test} インデックス（${copiesJa(copies)}）`],
  [/^(.+) \((\d+ cop(?:y|ies))\)$/, (test, copies) => `${test}（${copiesJa(copies)}）`],
];

function copiesJa(copies: string): string {
  const n = /^(\d+) cop(?:y|ies)$/.exec(copies)?.[1];
  return n ? `${n} 並列` : copies;
}

/** A metric's name as the app shows it. */
export function metricName(label: string): string {
  if (getLocale() !== 'ja') return label;
  if (JA_NAMES[label]) return JA_NAMES[label];
  for (const [re, word] of JA_RULES) {
    const m = re.exec(label);
    if (m) return word(...m.slice(1).map((g) => g ?? ''));
  }
  return label;
}

const JA_UNITS: Record<string, string> = { count: '個', packets: 'パケット', index: '指数' };

/** A unit as the app shows it in a Unit column ("count" reads as 個 in Japanese). */
export function unitName(unit: string): string {
  return getLocale() === 'ja' ? (JA_UNITS[unit] ?? unit) : unit;
}

/** "23.42 Gbit/s", "2" for a count (never "2 count"), in the app's language. */
export function valueWithUnit(value: number, unit: string): string {
  return formatWithUnit(value, unit, unitName);
}

import type { DocLang } from '../bench/words.js';
import { fillTemplate } from '../fillTemplate.js';

// What an exported Tera Term macro says to the person running it (its message boxes, its menu,
// its header comments), in the language the export was made in. A macro runs on someone's Windows desktop, often far
// from TagSSH: these boxes are all the help they get. `%s`/`%d` are sprintf2's, filled at run time,
// and the same in both languages, in the same order.

const en = {
  askStart: '%s is stopped. Start it now and wait until it is running?',
  noAws: 'The aws command was not found. Install the AWS CLI and make sure aws is on PATH.',
  noTagssh: 'The tagssh command was not found. Install TagSSH and make sure tagssh is on PATH, or export the macro with the aws CLI helper.',
  noAddress:
    'TagSSH found no usable address for %s (%s): no instance has this Name, or it has no public IP. Check the AWS profile and region, or export the macro again.',
  ambiguous: 'Several running instances are named %s. Give each a unique Name tag, or export the macro again and pick one.',
  stillStopped: '%s is still stopped. Start it in TagSSH (or: tagssh start) and run this macro again.',
  lookupFailedAws: 'Looking up %s (%s) failed with exit code %d. Check your AWS credentials (aws sts get-caller-identity) and try again.',
  lookupFailed: 'Looking up %s (%s) failed with exit code %d. Run the same lookup in a Command Prompt (tagssh resolve) to see why.',
  unreadable: 'Could not read the lookup result for %s from %s.',
  notRunning: '%s is not running (state: %s). Start it and run this macro again.',
  emptyPrivate: 'The lookup found %s but printed no address. Does it have a private IP?',
  emptyPublic: 'The lookup found %s but printed no address. Does it have a public IP or an Elastic IP? (For a VPN, export with --private.)',
  notAddress: 'The lookup for %s printed something that is not an address: %s',
  menu: 'Connect to which instance?',
} as const;

export type TtlWordId = keyof typeof en;

const ja: Record<TtlWordId, string> = {
  askStart: '%s は停止しています。いま起動して、実行中になるまで待ちますか？',
  noAws: 'aws コマンドが見つかりません。AWS CLI をインストールし、PATH に aws があることを確かめてください。',
  noTagssh:
    'tagssh コマンドが見つかりません。TagSSH をインストールして PATH に tagssh があることを確かめるか、aws CLI を使うマクロとして書き出し直してください。',
  noAddress:
    '%s（%s）の使えるアドレスが見つかりません。この Name のインスタンスがないか、パブリック IP がありません。AWS のプロファイルとリージョンを確かめるか、マクロを書き出し直してください。',
  ambiguous: '%s という名前の実行中インスタンスが複数あります。Name タグを一意にするか、マクロを書き出し直して 1 台を選んでください。',
  stillStopped: '%s はまだ停止しています。TagSSH（または tagssh start）で起動してから、このマクロをもう一度実行してください。',
  lookupFailedAws:
    '%s（%s）のアドレスの取得に失敗しました（終了コード %d）。AWS の認証情報（aws sts get-caller-identity）を確かめてから、もう一度実行してください。',
  lookupFailed: '%s（%s）のアドレスの取得に失敗しました（終了コード %d）。コマンドプロンプトで同じ取得（tagssh resolve）を実行すると理由がわかります。',
  unreadable: '%s のアドレスの取得結果を %s から読めませんでした。',
  notRunning: '%s は実行中ではありません（状態: %s）。起動してから、このマクロをもう一度実行してください。',
  emptyPrivate: '%s は見つかりましたが、アドレスがありません。プライベート IP はありますか？',
  emptyPublic: '%s は見つかりましたが、アドレスがありません。パブリック IP か Elastic IP はありますか？（VPN 経由なら --private で書き出してください。）',
  notAddress: '%s のアドレスとして、アドレスではないものが返りました: %s',
  menu: 'どのインスタンスに接続しますか？',
};

/** A macro's words in a language (English when none is given). */
export function ttlWord(id: TtlWordId, lang: DocLang = 'en'): string {
  return (lang === 'ja' ? ja : en)[id];
}

// The macro's header comments, for whoever opens the file in an editor: in the same language as
// its boxes. `{x}` is filled when the macro is made (Names and addresses verbatim; ttlComment
// keeps them on their line).
const headerEn = {
  titleOne: 'TagSSH: connect to {name}',
  titleMenu: 'TagSSH: pick one of {count} instance(s) and connect',
  exported: 'Exported by TagSSH at {at}. Do not edit: export again instead.',
  at: ' at {address}',
  noAddress: 'no address',
  more: '  … and {count} more',
  static: 'Static: the address above is baked in and goes stale when the instance stops or its IP changes.',
  dynamicAws: 'Dynamic: asks the aws CLI for the current address (by instance id) every time it runs.',
  dynamicTagssh: 'Dynamic: asks `tagssh resolve` for the current address every time it runs; needs tagssh on PATH.',
} as const;

export type TtlHeaderId = keyof typeof headerEn;

const headerJa: Record<TtlHeaderId, string> = {
  titleOne: 'TagSSH: {name} に接続',
  titleMenu: 'TagSSH: {count} 台のインスタンスから 1 台を選んで接続',
  exported: 'TagSSH が {at} に書き出しました。編集せず、書き出し直してください。',
  at: ' アドレス {address}',
  noAddress: 'なし',
  more: '  … ほか {count} 台',
  static: '静的: 上のアドレスを埋め込んでいます。インスタンスが停止したり IP が変わったりすると使えなくなります。',
  dynamicAws: '動的: 実行するたびに aws CLI で現在のアドレスを（インスタンス ID で）調べます。',
  dynamicTagssh: '動的: 実行するたびに `tagssh resolve` で現在のアドレスを調べます。PATH に tagssh が必要です。',
};

/** A header comment's words in a language, `{x}` filled from params. */
export function ttlHeader(id: TtlHeaderId, lang: DocLang = 'en', params: Record<string, string | number> = {}): string {
  return fillTemplate((lang === 'ja' ? headerJa : headerEn)[id], params);
}

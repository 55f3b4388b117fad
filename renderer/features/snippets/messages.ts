import { defineMessages } from '../../i18n/index.js';

// Words of Settings → Snippets.

export const t = defineMessages({
  en: {
    legend: 'Snippets',
    intro:
      'Saved commands, typed into a shell as text when you run them (nothing runs on this computer). A tag limits a snippet to instances with that tag value.',
    none: 'No snippets yet.',
    name: 'Name',
    command: 'Command',
    tag: 'Only for tag (optional)',
    tagPh: 'env=staging',
    everywhere: 'all instances',
    add: 'Add snippet',
    update: 'Save snippet',
    edit: 'Edit',
    delete: 'Delete',
    cancelEdit: 'Cancel',
    deleteTitle: 'Delete the snippet “{name}”?',
    deleteBody: 'The saved command is removed from Settings.',
    badName: 'Name: use letters, digits, “.”, “-” or “_” (up to 64), starting with a letter or digit.',
    dupName: 'A snippet named “{name}” already exists.',
    badCommand: 'Command: write the command text (tabs and new lines are fine, other control characters are not).',
    badTag: 'Tag: write key=value, e.g. env=staging, or leave it empty.',
    saved: 'Snippets saved.',
  },
  ja: {
    legend: 'スニペット',
    intro:
      '保存したコマンドです。実行するとシェルに文字として入力されます(このコンピューター上では実行されません)。タグを指定すると、そのタグ値を持つインスタンスだけで使えます。',
    none: 'スニペットはまだありません。',
    name: '名前',
    command: 'コマンド',
    tag: 'タグで限定(任意)',
    tagPh: 'env=staging',
    everywhere: 'すべてのインスタンス',
    add: 'スニペットを追加',
    update: 'スニペットを保存',
    edit: '編集',
    delete: '削除',
    cancelEdit: 'キャンセル',
    deleteTitle: 'スニペット「{name}」を削除しますか?',
    deleteBody: '保存したコマンドが設定から削除されます。',
    badName: '名前: 英数字・「.」「-」「_」で 64 文字まで、先頭は英数字にしてください。',
    dupName: '「{name}」という名前のスニペットはすでにあります。',
    badCommand: 'コマンド: コマンドの文字列を入力してください(タブと改行は使えますが、その他の制御文字は使えません)。',
    badTag: 'タグ: キー=値 の形で入力するか(例: env=staging)、空のままにしてください。',
    saved: 'スニペットを保存しました。',
  },
});

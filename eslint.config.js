// Lint = correctness rules + the layer rules that keep the engine free of Electron and the DOM.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = { group: ['node:*'], message: 'src/common and renderer/ run without Node: no node:* imports.' };
const noElectron = { group: ['electron', 'electron/*'], message: 'Only main/ may import Electron.' };
const noUi = { group: ['@xterm/*', 'chart.js', 'chart.js/*'], message: 'UI libraries belong in renderer/.' };
const upToMain = { group: ['**/main/**', '../main/*', '../../main/*'], message: 'main/ is the top layer: nothing imports it.' };
const upToRenderer = { group: ['**/renderer/**'], message: 'renderer/ is a top layer: nothing imports it.' };
const toNode = { group: ['**/node/**', '**/src/node/*'], message: 'This layer may not import src/node (the Node-only engine).' };
const ipc = {
  name: 'electron',
  importNames: ['ipcMain', 'ipcRenderer', 'contextBridge'],
  message: 'Only main/ipcTransport.ts (ipcMain) and main/preload.ts (ipcRenderer, contextBridge) touch IPC.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'test-artifacts/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['src/common/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [nodeBuiltins, noElectron, noUi, upToMain, upToRenderer, toNode] }] },
  },
  {
    files: ['src/node/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noElectron, noUi, upToMain, upToRenderer] }] },
  },
  {
    files: ['renderer/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [nodeBuiltins, noElectron, upToMain, toNode] }] },
  },
  {
    files: ['main/**/*.ts'],
    ignores: ['main/ipcTransport.ts', 'main/preload.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [ipc], patterns: [upToRenderer, noUi] }] },
  },
  {
    files: ['**/*.mjs', 'bin/**', 'scripts/**', 'bench/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', performance: 'readonly', Buffer: 'readonly', fetch: 'readonly' } },
  },
);

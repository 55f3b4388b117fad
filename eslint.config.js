// Lint = correctness rules + the layer rules that keep the engine free of Electron and the DOM.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import local from './scripts/eslint/layering.mjs';

const ipc = {
  name: 'electron',
  importNames: ['ipcMain', 'ipcRenderer', 'contextBridge'],
  message: 'Only main/ipcTransport.ts (ipcMain) and main/preload.ts (ipcRenderer, contextBridge) touch IPC.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'release/**', 'node_modules/**', 'test-artifacts/**', 'perf/results/**'] },
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
    // The layers (src/common → src/node → main/, renderer/), for import() too: scripts/eslint/layering.mjs.
    files: ['src/**/*.ts', 'main/**/*.ts', 'renderer/**/*.ts'],
    plugins: { local },
    rules: { 'local/layering': 'error' },
  },
  {
    // Product code reads in one sitting: a file under 400 lines, a function under 80 (blank lines
    // and comments not counted). A longer one says why beside an eslint-disable-next-line.
    files: ['src/**/*.ts', 'main/**/*.ts', 'renderer/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['main/**/*.ts'],
    ignores: ['main/ipcTransport.ts', 'main/preload.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [ipc] }] },
  },
  {
    files: ['**/*.mjs', 'bin/**', 'scripts/**', 'perf/**'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        performance: 'readonly',
        Buffer: 'readonly',
        fetch: 'readonly',
      },
    },
  },
);

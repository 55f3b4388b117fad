// The layer rule, for static imports, re-exports and dynamic import() alike (ESLint's
// no-restricted-imports does not see import(), and the CLI's fast paths are mostly import()).
//
// Floors, bottom up: src/common → src/node → the faces (src/node/cli, main/, renderer/). A file may
// import its own floor and the floors below it, never one above, and the faces never import each
// other: main/ and renderer/ meet only through src/common/contract.ts, and the CLI (src/node/cli,
// a face that runs on Node) is imported by no one, so the engine never speaks in its flags. Each floor also has packages it may not use
// (Node built-ins where there is no Node, Electron outside main/, UI libraries outside renderer/).
import { dirname, relative, resolve, sep } from 'node:path';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..', '..');

/** Floors by path prefix (relative to the repository), most specific first. */
const FLOORS = [
  ['src/common/', 'common'],
  ['src/node/cli/', 'cli'],
  ['src/node/', 'node'],
  ['main/', 'main'],
  ['renderer/', 'renderer'],
];

/** Which floors each floor may import. */
const MAY_IMPORT = {
  common: ['common'],
  node: ['common', 'node'],
  cli: ['common', 'node', 'cli'],
  main: ['common', 'node', 'main'],
  renderer: ['common', 'renderer'],
};

const NODE_BUILTIN = (s) => s.startsWith('node:');
const ELECTRON = (s) => s === 'electron' || s.startsWith('electron/');
const UI_LIBRARY = (s) => s.startsWith('@xterm/') || s === 'chart.js' || s.startsWith('chart.js/');

/** Packages each floor may not use, with the reason shown. */
const BANNED_PACKAGES = {
  common: [
    [NODE_BUILTIN, 'src/common runs without Node: no node:* imports.'],
    [ELECTRON, 'Only main/ may import Electron.'],
    [UI_LIBRARY, 'UI libraries belong in renderer/.'],
  ],
  node: [
    [ELECTRON, 'Only main/ may import Electron.'],
    [UI_LIBRARY, 'UI libraries belong in renderer/.'],
  ],
  cli: [
    [ELECTRON, 'Only main/ may import Electron.'],
    [UI_LIBRARY, 'UI libraries belong in renderer/.'],
  ],
  main: [[UI_LIBRARY, 'UI libraries belong in renderer/.']],
  renderer: [
    [NODE_BUILTIN, 'renderer/ runs without Node: no node:* imports.'],
    [ELECTRON, 'Only main/ may import Electron.'],
  ],
};

/** How a floor is named in messages. */
const PLACE = { common: 'src/common', node: 'src/node', cli: 'src/node/cli', main: 'main/', renderer: 'renderer/' };

export function floorOf(repoPath) {
  const p = repoPath.split(sep).join('/');
  for (const [prefix, floor] of FLOORS) if (p.startsWith(prefix)) return floor;
  return null;
}

/** Why `specifier`, imported from the file at repository path `from`, breaks the layers; null when it does not. */
export function layerViolation(from, specifier) {
  const floor = floorOf(from);
  if (!floor) return null;
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    const target = relative(ROOT, resolve(ROOT, dirname(from), specifier));
    const to = floorOf(target);
    if (!to || MAY_IMPORT[floor].includes(to)) return null;
    if (to === 'cli')
      return `${PLACE[floor]} may not import src/node/cli: the CLI is a face, imported by no one (the engine says codes; the CLI's flags and words stay in src/node/cli).`;
    return `${PLACE[floor]} may not import ${PLACE[to]}: layers import downward only, and the faces meet only through src/common/contract.ts.`;
  }
  for (const [matches, why] of BANNED_PACKAGES[floor]) if (matches(specifier)) return why;
  return null;
}

/** The specifier of an import()/import/export node when it is a constant string; undefined when computed. */
function constantSpecifier(source) {
  if (!source) return null;
  if (source.type === 'Literal' && typeof source.value === 'string') return source.value;
  if (source.type === 'TemplateLiteral' && source.expressions.length === 0) return source.quasis[0].value.cooked;
  return undefined;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Layers import downward only, in static and dynamic imports alike.' },
    schema: [],
    messages: {
      layer: '{{why}}',
      computed: 'A computed import() cannot be checked against the layers: import a constant path.',
    },
  },
  create(context) {
    const from = relative(ROOT, context.filename);
    if (!floorOf(from)) return {};
    const check = (node, source) => {
      const specifier = constantSpecifier(source);
      if (specifier === null) return;
      if (specifier === undefined) return context.report({ node, messageId: 'computed' });
      const why = layerViolation(from, specifier);
      if (why) context.report({ node, messageId: 'layer', data: { why } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
      // `typeof import('…')` in a type position reaches the module as much as an import does.
      TSImportType: (node) => check(node, node.argument?.type === 'TSLiteralType' ? node.argument.literal : node.argument),
    };
  },
};

export default { rules: { layering: rule } };

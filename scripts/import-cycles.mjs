#!/usr/bin/env node
// No import circles in the product: every relative import between src/, main/ and renderer/ —
// static, type-only, re-exports and import() alike — forms a graph with no cycle. A circle makes
// a module's meaning depend on load order and hides which file owns what; types count too, since
// a type-only circle is the same knot for a reader.
//
// Usage: node scripts/import-cycles.mjs [ROOT]   (ROOT defaults to the repository)
// Prints each circle as "a.ts > b.ts > a.ts" and exits 1 when there is any.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..'));
const DIRS = ['src', 'main', 'renderer'];

function tsFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return n === 'node_modules' ? [] : tsFiles(p);
    return /\.tsx?$/.test(n) && !n.endsWith('.d.ts') ? [p] : [];
  });
}

/** The file a relative specifier names: `./x.js` is ./x.ts (ESM TypeScript), `./dir` its index.ts. */
function resolveSpecifier(from, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(from), spec);
  for (const c of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, join(base, 'index.ts')])
    if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}

const files = DIRS.flatMap((d) => tsFiles(join(root, d)));
const edges = new Map();
for (const f of files) {
  const info = ts.preProcessFile(readFileSync(f, 'utf8'), true, true);
  const targets = new Set();
  for (const r of info.importedFiles) {
    const t = resolveSpecifier(f, r.fileName);
    if (t && t !== f) targets.add(t);
  }
  edges.set(f, [...targets].sort());
}

// Tarjan's strongly connected components: each component of more than one file holds a circle.
let index = 0;
const idx = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const components = [];
function visit(v) {
  idx.set(v, index);
  low.set(v, index++);
  stack.push(v);
  onStack.add(v);
  for (const w of edges.get(v) ?? []) {
    if (!idx.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
  }
  if (low.get(v) === idx.get(v)) {
    const c = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      c.push(w);
    } while (w !== v);
    if (c.length > 1) components.push(c);
  }
}
for (const f of files) if (!idx.has(f)) visit(f);

/** One shortest circle through the component's first file, to show where to cut. */
function circleIn(c) {
  const inC = new Set(c);
  const start = [...c].sort()[0];
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of edges.get(v) ?? []) {
      if (!inC.has(w)) continue;
      if (w === start) {
        const path = [v];
        for (let p = prev.get(v); p; p = prev.get(p)) path.unshift(p);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return c;
}

const rel = (f) => relative(root, f);
for (const c of components) console.log(`import circle (${c.length} files): ${circleIn(c).map(rel).join(' > ')}`);
if (components.length) {
  console.log(`${components.length} import circle(s) in ${DIRS.join(', ')}: cut each where the files share something a third file can hold.`);
  process.exit(1);
}

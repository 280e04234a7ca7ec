// The import graph of src/: every relative import (type-only ones too: a circle through types still ties two
// modules together), resolved to files. Used by the lint rules in eslint/perch-rules.mjs and by `node
// scripts/import-graph.mjs` (prints the circles and the arrows between hub areas).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const EXTS = ['.ts', '.tsx', '.mts', '/index.ts', '/index.tsx'];

function listFiles(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p));
    else if (/\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** The file a relative import names, or undefined (a package, or nothing there). */
export function resolveImport(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  for (const ext of ['', ...EXTS]) {
    const p = base + ext;
    if (fs.existsSync(p) && fs.statSync(p).isFile()) return p;
  }
  return undefined;
}

/** Changes whenever a file under root is added, removed or written (paths, sizes and mtimes). */
export function treeStamp(root) {
  return listFiles(root)
    .map((f) => {
      const st = fs.statSync(f);
      return `${f}:${st.size}:${st.mtimeMs}`;
    })
    .join('|');
}

/** file → [{ to, spec }] for every file under root. */
export function importGraph(root) {
  const graph = new Map();
  for (const f of listFiles(root)) {
    const edges = [];
    // TypeScript's own scanner: imports, exports from, import() in code and in types; never what a comment or a
    // string says.
    for (const { fileName: spec } of ts.preProcessFile(fs.readFileSync(f, 'utf8'), true, true).importedFiles) {
      const to = resolveImport(f, spec);
      if (to) edges.push({ to, spec });
    }
    graph.set(f, edges);
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself): the import circles. */
export function circles(graph) {
  let index = 0;
  const idx = new Map(),
    low = new Map(),
    onStack = new Set(),
    stack = [],
    out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const { to } of graph.get(v) ?? []) {
      if (!idx.has(to)) {
        visit(to);
        low.set(v, Math.min(low.get(v), low.get(to)));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v), idx.get(to)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      const selfLoop = (graph.get(v) ?? []).some((e) => e.to === v);
      if (comp.length > 1 || selfLoop) out.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(process.argv[2] ?? 'src');
  const g = importGraph(root);
  const cs = circles(g);
  console.log(`${g.size} files, ${[...g.values()].reduce((n, e) => n + e.length, 0)} import arrows, ${cs.length} circles`);
  for (const c of cs) console.log('circle:', c.map((f) => path.relative(root, f)).join(' ↔ '));
}

// Perch's own lint rules, on top of the layer rules in eslint.config.mjs:
// - perch/no-import-circle: no file of src/ takes part in an import circle (type-only imports count: a circle
//   through types still ties the modules' meaning together, and it is how circles start).
// - perch/area-direction: src/, src/main and the domain (src/main/hub) are each in areas (their first folders); an
//   area imports only the areas it is allowed to (options: { layers: [{ root, allowed: { area: [areas] } }] }), so
//   dependencies go one way. The patterns are anchored at each root, so they hold at any depth below it.
import path from 'node:path';
import { circles, importGraph, resolveImport, treeStamp } from '../scripts/import-graph.mjs';

const cache = new Map(); // root → { stamp, inCircle } (one lint run reads the tree once; a changed file reads it again)

function circleMembers(root) {
  const stamp = treeStamp(root);
  const hit = cache.get(root);
  if (hit && hit.stamp === stamp) return hit.inCircle;
  const inCircle = new Map();
  for (const c of circles(importGraph(root))) for (const f of c) inCircle.set(f, c);
  cache.set(root, { stamp, inCircle });
  return inCircle;
}

function importNodes(program) {
  const out = [];
  for (const n of program.body) {
    if ((n.type === 'ImportDeclaration' || n.type === 'ExportNamedDeclaration' || n.type === 'ExportAllDeclaration') && n.source) {
      out.push({ node: n, spec: n.source.value });
    }
  }
  return out;
}

const noImportCircle = {
  meta: { type: 'problem', schema: [{ type: 'object', properties: { root: { type: 'string' } }, additionalProperties: false }] },
  create(context) {
    const root = path.resolve(context.cwd ?? process.cwd(), context.options[0]?.root ?? 'src');
    const file = path.resolve(context.filename);
    if (!file.startsWith(root + path.sep)) return {};
    return {
      Program(program) {
        const circle = circleMembers(root).get(file);
        if (!circle) return;
        const others = new Set(circle.filter((f) => f !== file));
        for (const { node, spec } of importNodes(program)) {
          if (others.has(resolveImport(file, spec))) {
            context.report({
              node,
              message: `Import circle among ${circle.map((f) => path.relative(root, f)).join(', ')}. Move what both need to a module neither imports (often a types file), or pass it in.`,
            });
            return;
          }
        }
      },
    };
  },
};

const layerSchema = {
  type: 'object',
  properties: { root: { type: 'string' }, allowed: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
  required: ['root', 'allowed'],
  additionalProperties: false,
};

const areaDirection = {
  meta: {
    type: 'problem',
    schema: [
      { type: 'object', properties: { layers: { type: 'array', items: layerSchema } }, required: ['layers'], additionalProperties: false },
    ],
  },
  create(context) {
    const cwd = context.cwd ?? process.cwd();
    const file = path.resolve(context.filename);
    // Each layer map: the areas (first folders) under root, and which areas each may import ('' = files in root itself).
    const layers = context.options[0].layers.map(({ root, allowed }) => ({ rel: root, root: path.resolve(cwd, root), allowed }));
    const areaOf = (root, f) => {
      const r = path.relative(root, f);
      if (r.startsWith('..') || path.isAbsolute(r)) return undefined;
      const first = r.split(path.sep)[0];
      return first === r ? '' : first;
    };
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), spec);
      for (const { rel, root, allowed } of layers) {
        const from = areaOf(root, file);
        const to = areaOf(root, target);
        if (from === undefined || to === undefined || to === from) continue;
        const name = (a) => (a === '' ? `${rel}/*` : `${rel}/${a}`);
        if (!(from in allowed)) {
          context.report({
            node,
            message: `${path.relative(cwd, file)} is not in an area of ${rel} (areas: ${Object.keys(allowed).map(name).join(', ')}): move it into one.`,
          });
        } else if (!(to in allowed)) {
          context.report({
            node,
            message: `${name(to)} is not an area of ${rel} (areas: ${Object.keys(allowed).map(name).join(', ')}): put the file in one of them.`,
          });
        } else if (!(allowed[from] ?? []).includes(to)) {
          context.report({
            node,
            message: `${name(from)} may not import ${name(to)} (it may import: ${(allowed[from] ?? []).map(name).join(', ') || 'nothing of ' + rel}). Dependencies between areas go one way: move what both need down, or pass it in.`,
          });
        }
      }
    };
    return {
      ImportDeclaration: (n) => check(n.source, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n.source, n.source.value),
      ExportAllDeclaration: (n) => check(n.source, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n.source, n.source.value),
    };
  },
};

export default { rules: { 'no-import-circle': noImportCircle, 'area-direction': areaDirection } };

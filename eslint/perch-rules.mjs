// Perch's own lint rules, on top of the layer rules in eslint.config.mjs:
// - perch/no-import-circle: no file of src/ takes part in an import circle (type-only imports count: a circle
//   through types still ties the modules' meaning together, and it is how circles start).
// - perch/area-direction: the domain (src/main/hub) is in areas; an area imports only the areas it is allowed to
//   (options: { root, allowed: { area: [areas it may import] } }), so the dependencies stay one-way.
import path from 'node:path';
import { circles, importGraph, resolveImport } from '../scripts/import-graph.mjs';

const cache = new Map(); // root → { at, inCircle: Map<file, string[]> } (one lint run reads the tree once)

function circleMembers(root) {
  const hit = cache.get(root);
  if (hit && Date.now() - hit.at < 5_000) return hit.inCircle;
  const inCircle = new Map();
  for (const c of circles(importGraph(root))) for (const f of c) inCircle.set(f, c);
  cache.set(root, { at: Date.now(), inCircle });
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

const areaDirection = {
  meta: {
    type: 'problem',
    schema: [{
      type: 'object',
      properties: { root: { type: 'string' }, allowed: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } },
      required: ['root', 'allowed'],
      additionalProperties: false,
    }],
  },
  create(context) {
    const { root: rel, allowed } = context.options[0];
    const root = path.resolve(context.cwd ?? process.cwd(), rel);
    const file = path.resolve(context.filename);
    const areaOf = (f) => {
      const r = path.relative(root, f);
      if (r.startsWith('..') || path.isAbsolute(r)) return undefined;
      const first = r.split(path.sep)[0];
      return first === r ? '' : first; // '' = a file directly in root
    };
    const from = areaOf(file);
    if (from === undefined) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = areaOf(path.resolve(path.dirname(file), spec));
      if (to === undefined || to === from) return;
      if (!(to in allowed)) {
        context.report({ node, message: `"${to || path.basename(spec)}" is not an area of ${rel}: put the file in one of ${Object.keys(allowed).join(', ')}.` });
      } else if (!(allowed[from] ?? []).includes(to)) {
        context.report({
          node,
          message: `${rel}/${from} may not import ${rel}/${to} (allowed: ${(allowed[from] ?? []).join(', ') || 'none'}). Dependencies between areas go one way: move the shared part down, or pass it in.`,
        });
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

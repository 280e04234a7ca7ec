// Summarizes a V8 .cpuprofile (from node --cpu-prof, e.g. `npm run bench -- --cpu-prof DIR`):
// the functions with the most self time, and inclusive time of chosen functions.
//   node bench/profile-summary.mjs FILE.cpuprofile [TOP=30] [name-filter ...]
import fs from 'node:fs';

const [file, topArg, ...names] = process.argv.slice(2);
const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
const top = Number(topArg ?? 30);
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const self = new Map();
const dt = prof.timeDeltas;
let total = 0;
for (let i = 0; i < prof.samples.length; i++) {
  const d = dt[i] ?? 0;
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + d);
  total += d;
}
const key = (n) =>
  `${n.callFrame.functionName || '(anonymous)'} ${(n.callFrame.url || '').replace(/^.*\/(node_modules|src|dist)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
const selfBy = new Map();
const inclBy = new Map();
for (const n of prof.nodes) {
  const s = self.get(n.id) ?? 0;
  if (!s) continue;
  selfBy.set(key(n), (selfBy.get(key(n)) ?? 0) + s);
  // inclusive: walk up, counting each distinct key once per sample-node
  const seen = new Set();
  for (let id = n.id; id !== undefined; id = parent.get(id)) {
    const k = key(byId.get(id));
    if (seen.has(k)) continue;
    seen.add(k);
    inclBy.set(k, (inclBy.get(k) ?? 0) + s);
  }
}
const pct = (x) => `${((100 * x) / total).toFixed(1).padStart(5)}%`;
console.log(`total ${(total / 1e6).toFixed(2)} s sampled`);
console.log('--- self');
for (const [k, v] of [...selfBy].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(v), k);
console.log('--- inclusive');
const filt = names.length ? [...inclBy].filter(([k]) => names.some((n) => k.includes(n))) : [...inclBy];
for (const [k, v] of filt.sort((a, b) => b[1] - a[1]).slice(0, names.length ? 200 : top)) console.log(pct(v), k);

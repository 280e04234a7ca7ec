// Install without surprises: the Node.js version the README asks for is package.json's engines floor, and every
// locked package (the Electron toolchain included) accepts that floor, so `npm ci` on the Node the README names
// prints no EBADENGINE warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

type Version = [number, number, number];

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/**
 * Whether an exact version (M.m.p) is in an npm engines range, as npm reads one: alternatives joined by `||`, each
 * comparators joined by spaces (>=, >, <=, <, =, ^, ~, or a bare version), a version partial (`20`, `20.x`, `10.*`)
 * or `*`. Anything else (a prerelease, a hyphen range) throws: the check then fails rather than guessing.
 */
function inRange(version: string, range: string): boolean {
  const v = version.split('.').map(Number) as Version;
  return range.split('||').some((alternative) =>
    alternative
      .trim()
      .replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1')
      .split(/\s+/)
      .every((comparator) => matches(v, comparator, range)),
  );
}

function matches(v: Version, comparator: string, range: string): boolean {
  const m = /^(>=|<=|>|<|=|\^|~)?v?(\d+|[x*])?(?:\.(\d+|[x*]))?(?:\.(\d+|[x*]))?$/.exec(comparator);
  if (!m) throw new Error(`engines range ${JSON.stringify(range)}: cannot read ${JSON.stringify(comparator)}`);
  const [, op = '', ...parts] = m;
  const given = parts.filter((p) => p !== undefined && p !== 'x' && p !== '*').map(Number);
  if (given.length === 0) return true; // `*`, `x`, an empty range
  const low = [given[0]!, given[1] ?? 0, given[2] ?? 0] as Version;
  // The first version past a partial one (20 → 21.0.0, 20.1 → 20.2.0); a full one is its own end.
  const past = (n: number): Version => (n === 0 ? [low[0] + 1, 0, 0] : n === 1 ? [low[0], low[1] + 1, 0] : [low[0], low[1], low[2] + 1]);
  const inside = (from: Version, to: Version) => compare(v, from) >= 0 && compare(v, to) < 0;
  switch (op) {
    case '>=':
      return compare(v, low) >= 0;
    case '>':
      return compare(v, given.length === 3 ? low : past(given.length - 1)) >= (given.length === 3 ? 1 : 0);
    case '<':
      return compare(v, low) < 0;
    case '<=':
      return compare(v, past(given.length - 1)) < 0;
    case '^':
      return inside(low, past(low[0] > 0 || given.length === 1 ? 0 : low[1] > 0 || given.length === 2 ? 1 : 2));
    case '~':
      return inside(low, past(given.length === 1 ? 0 : 1));
    default: // `=` or a bare version: exactly it, or any version the partial names
      return inside(low, past(given.length - 1));
  }
}

test('inRange reads the engines ranges the lock file holds, as npm does', () => {
  const cases: Array<[string, string, boolean]> = [
    ['22.13.0', '>=22.13', true],
    ['22.12.9', '>=22.13', false],
    ['22.13.0', '>= 22.12.0', true],
    ['22.13.0', '^20.19.0 || ^22.13.0 || >=24', true],
    ['22.12.0', '^20.19.0 || ^22.13.0 || >=24', false],
    ['23.0.0', '^20.19.0 || ^22.13.0 || >=24', false],
    ['22.13.0', '^20.17.0 || >=22.9.0', true],
    ['22.13.0', '^18.18.0 || ^20.9.0 || >=21.1.0', true],
    ['22.13.0', '20.x || 22.x || 23.x', true],
    ['21.0.0', '20.x || 22.x || 23.x', false],
    ['22.13.0', '18 || 20 || >=22', true],
    ['21.7.0', '18 || 20 || >=22', false],
    ['22.13.0', '>=6 <7 || >=8', true],
    ['7.1.0', '>=6 <7 || >=8', false],
    ['22.13.0', '10.* || >= 12.*', true],
    ['11.0.0', '10.* || >= 12.*', false],
    ['22.13.0', '*', true],
    ['22.13.0', '^20.9.0', false],
    ['22.13.0', '~22.13.1', false],
    ['22.13.5', '~22.13.1', true],
    ['22.14.0', '~22.13.1', false],
    ['0.3.4', '^0.3.1', true],
    ['0.4.0', '^0.3.1', false],
    ['22.13.0', '<=22.12', false],
    ['22.12.7', '<=22.12', true],
    ['22.13.0', '>22.12', true],
    ['22.12.7', '>22.12', false],
    ['22.13.0', '>22.13.0', false],
  ];
  assert.deepEqual(
    cases.filter(([v, r, want]) => inRange(v, r) !== want).map(([v, r, want]) => `${v} in ${r}: want ${want}`),
    [],
  );
  assert.throws(() => inRange('22.13.0', '>=22.0.0-rc.1'), /cannot read/);
});

test("the README's Node.js version is the engines floor, and every locked package's engines accept it", () => {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const named = /You need Node\.js (\d+\.\d+) or newer/.exec(readme)?.[1];
  assert.ok(named, 'the README names the Node.js version it needs');
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.engines.node, `>=${named}`, 'package.json engines.node is the version the README names');
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  assert.equal(lock.packages[''].engines.node, pkg.engines.node, 'the lock file says the same');
  const floor = `${named}.0`;
  const refusing = Object.entries(lock.packages as Record<string, any>)
    // A platform's own optional binary (sharp's win32-ia32 build) is installed only there: npm skips it elsewhere.
    .filter(([name, p]) => name && !(p.optional && (p.os || p.cpu)))
    .filter(([, p]) => typeof p.engines?.node === 'string' && !inRange(floor, p.engines.node))
    .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')} wants node ${p.engines.node}`);
  assert.deepEqual(refusing, [], `npm ci on Node ${floor} would warn EBADENGINE for these`);
});

// Known advisories, offline: every installed copy of marked, dompurify, jws (web-push's) and sharp is at or
// above the version that fixed each advisory in docs/advisory-floors.txt (scripts/advisory-floors.ts), since
// `npm audit` cannot reach its endpoint on every machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, findings, FLOORS_FILE, installedCopies, parseFloors, ROOT, tooOld, type Copy } from '../../scripts/advisory-floors';

const floors = parseFloors(fs.readFileSync(FLOORS_FILE, 'utf8'));
const names = [...new Set(floors.map((f) => f.pkg))];

test('the advisory table names the runtime dependencies that matter, one advisory per line', () => {
  for (const pkg of ['marked', 'dompurify', 'jws', 'sharp']) assert.ok(names.includes(pkg), `${pkg} has advisories in the table`);
  const ids = floors.map((f) => `${f.pkg} ${f.id}`);
  assert.equal(new Set(ids).size, ids.length, 'each advisory once per package');
  const deps = Object.keys(
    (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies,
  );
  for (const pkg of ['marked', 'dompurify', 'web-push', 'sharp']) assert.ok(deps.includes(pkg), `${pkg} is a runtime dependency`);
});

test("every installed copy (package-lock.json and node_modules) is at or above each advisory's fixed version", () => {
  const copies = installedCopies(ROOT, names);
  for (const pkg of names) {
    assert.ok(
      copies.some((c) => c.pkg === pkg && c.source === 'lock'),
      `${pkg} is in package-lock.json`,
    );
    assert.ok(
      copies.some((c) => c.pkg === pkg && c.source === 'installed'),
      `${pkg} is installed`,
    );
  }
  const bad = findings(floors, copies);
  assert.deepEqual(bad.map(describe), [], 'upgrade these (npm update <package>)');
});

test('the jws checked is the one web-push loads', () => {
  const loaded = fs.realpathSync(
    path.dirname(require.resolve('jws/package.json', { paths: [path.join(ROOT, 'node_modules', 'web-push')] })),
  );
  const copies = installedCopies(ROOT, ['jws']).filter((c) => c.source === 'installed');
  assert.ok(
    copies.some((c) => fs.realpathSync(path.join(ROOT, c.where)) === loaded),
    `${loaded} is among ${copies.map((c) => c.where).join(', ')}`,
  );
});

test('a copy below a fix is reported, per release line', () => {
  // One line per major (or 0.minor): jws fixed 3.2.3 and 4.0.1.
  assert.equal(tooOld('4.0.0', ['3.2.3', '4.0.1']), true);
  assert.equal(tooOld('4.0.1', ['3.2.3', '4.0.1']), false);
  assert.equal(tooOld('3.2.2', ['3.2.3', '4.0.1']), true);
  assert.equal(tooOld('3.2.3', ['3.2.3', '4.0.1']), false);
  assert.equal(tooOld('2.9.9', ['3.2.3', '4.0.1']), true, 'a line with no fix below every fix is too old');
  assert.equal(tooOld('5.0.0', ['3.2.3', '4.0.1']), false, 'a later line is not');
  assert.equal(tooOld('0.34.5', ['0.35.0']), true, 'sharp 0.34 is below 0.35.0');
  assert.equal(tooOld('0.35.0-rc.1', ['0.35.0']), true, 'a prerelease is below its release');
  assert.equal(tooOld('not a version', ['1.0.0']), true, 'an unreadable version is not known to be safe');
  // With the table itself: the versions just below today's floors would fail the check.
  const copy = (pkg: string, version: string): Copy => ({ pkg, version, where: `node_modules/${pkg}`, source: 'installed' });
  const old = findings(floors, [copy('dompurify', '3.4.12'), copy('marked', '18.0.1'), copy('jws', '4.0.0'), copy('sharp', '0.34.5')]);
  assert.deepEqual([...new Set(old.map((f) => f.copy.pkg))].sort(), ['dompurify', 'jws', 'marked', 'sharp']);
  assert.ok(old.some((f) => f.floor.id === 'GHSA-869p-cjfg-cm3x'));
});

test('a malformed line of the table is refused with its line number', () => {
  assert.throws(() => parseFloors('marked 18.0.2'), /:1: expected/);
  assert.throws(() => parseFloors('# c\nmarked latest GHSA-aaaa-bbbb-cccc x'), /:2: "latest" is not a version/);
  assert.throws(() => parseFloors('marked 1.0.0 XYZ-1 x'), /not a GHSA or CVE id/);
});

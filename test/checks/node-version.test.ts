// Install without surprises: the Node.js version the README asks for is package.json's engines floor, and every
// locked package (the Electron toolchain included) accepts that floor, so `npm ci` on the Node the README names
// prints no EBADENGINE warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
// @ts-expect-error semver ships no types here (a dependency of npm's own tooling, hoisted into node_modules)
import semver from 'semver';

const ROOT = path.resolve(__dirname, '..', '..');

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
    .filter(([, p]) => typeof p.engines?.node === 'string' && !semver.satisfies(floor, p.engines.node))
    .map(([name, p]) => `${name.replace(/^.*node_modules\//, '')} wants node ${p.engines.node}`);
  assert.deepEqual(refusing, [], `npm ci on Node ${floor} would warn EBADENGINE for these`);
});

// A hub's services are typed fields of the hub, declared once (src/main/hub/services.ts HubServices, joining each
// area's services.ts) and built once by the composition root (src/main/hub-services.ts): no `declare module` adds to
// the hub, nothing sets a field of the hub after it is built, hub/ keeps no module table of hubs, two hubs on one file
// keep their own state, and the bus tells every listener of a wake nobody heard (wake runs subscribe there), not just one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { makeHub } from '../support/helpers';
import { createHub } from '../../src/main/hub-services';
import { notePresence, presenceOf } from '../../src/main/hub/control/presence';
import { Bus } from '../../src/main/hub/core/bus';
import ts from 'typescript';

function hubFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? hubFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('hub/ keeps no module-level table of hubs: no (Weak)Map keyed by the hub, no module-level cache, no wake-runs registry', () => {
  const offenders: string[] = [];
  for (const f of hubFiles(path.join(import.meta.dirname, '..', '..', 'src', 'main', 'hub'))) {
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (/(WeakMap|Map)<\s*Hub\b/.test(line) || /^(export )?(const|let) \w+ = new OutsideMemo\b/.test(line) || /\bwakeRunsOf\b/.test(line))
        offenders.push(`${path.relative(process.cwd(), f)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(offenders, []);
});

test('two hubs on one database keep their own services', () => {
  const t = makeHub();
  const other = createHub({ db: t.hub.db });
  try {
    const a = t.agent('ada');
    notePresence(t.hub, a.id, 'send_message');
    assert.notEqual(presenceOf(t.hub, a.id).seen_at, null);
    assert.equal(presenceOf(other, a.id).seen_at, null);
    assert.notEqual(t.hub.services, other.services);
  } finally {
    other.close();
    t.close();
  }
});

test('the bus tells every listener of a wake nobody heard, until it unsubscribes, and none when a call waits', async () => {
  const bus = new Bus();
  const heard: string[] = [];
  const offA = bus.onUnheard((id) => heard.push(`a:${id}`));
  bus.onUnheard((id) => heard.push(`b:${id}`));
  bus.wake('u1');
  assert.deepEqual(heard, ['a:u1', 'b:u1']);
  offA();
  bus.wake('u2');
  assert.deepEqual(heard, ['a:u1', 'b:u1', 'b:u2']);
  const waiting = bus.wait('u3', 5_000);
  bus.wake('u3');
  assert.equal(await waiting, 'woken');
  assert.deepEqual(heard, ['a:u1', 'b:u1', 'b:u2']);
});

test('nothing sets a field of the hub after it is built: every public field of Hub is readonly (the doors report through hub.doors)', () => {
  const file = path.join(import.meta.dirname, '..', '..', 'src', 'main', 'hub', 'core', 'hub.ts');
  const src = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const hub = src.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === 'Hub');
  assert.ok(hub, 'class Hub in hub/core/hub.ts');
  const writable = hub.members.filter(ts.isPropertyDeclaration).filter((m) => {
    const mods = ts.getModifiers(m)?.map((x) => x.kind) ?? [];
    return !mods.includes(ts.SyntaxKind.ReadonlyKeyword) && !mods.includes(ts.SyntaxKind.PrivateKeyword) && !ts.isPrivateIdentifier(m.name);
  });
  assert.deepEqual(
    writable.map((m) => m.name.getText(src)),
    [],
    'public fields of Hub that anyone may set after the hub is built',
  );
});

test('services are typed fields declared once: no `declare module` adds to the hub, and HubServices is declared only in src/main/hub/services.ts', () => {
  const root = path.join(import.meta.dirname, '..', '..', 'src');
  const augments: string[] = [];
  const declared: string[] = [];
  for (const f of hubFiles(root)) {
    const text = fs.readFileSync(f, 'utf8');
    const rel = path.relative(path.join(root, '..'), f);
    if (/^\s*declare module\b/m.test(text)) augments.push(rel);
    if (/^\s*(export )?interface HubServices\b/m.test(text)) declared.push(rel);
  }
  assert.deepEqual(augments, [], 'files that add to a module with `declare module`');
  assert.deepEqual(declared, [path.join('src', 'main', 'hub', 'services.ts')], 'where HubServices is declared');
});

// One login for every kind of agent key (hub/identity/key-login.ts): an agent's own key, a scoped key and a wake
// run's key are each authenticated by authenticateKey, which says who the key stands for and with what standing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/main/store/db/db';
import { createHub } from '../../src/main/hub-services';
import { addAgent, revokeAgent } from '../../src/main/hub/control/agents';
import { addAgentKey, revokeScopedKey } from '../../src/main/hub/identity/agent-keys';
import { issueRunKey } from '../../src/main/hub/identity/run-keys';
import { authenticateKey, keyStanding } from '../../src/main/hub/identity/key-login';
import { KEY_SCOPES } from '../../src/shared/agents/scoped-keys';

function hubWithClock() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-login-'));
  const db = openDatabase(path.join(dir, 'perch.sqlite'));
  let clock = Date.now();
  const hub = createHub({ db, now: () => clock });
  return {
    hub,
    advance(ms: number) {
      clock += ms;
    },
    close() {
      hub.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

test('authenticateKey logs in an own key, a scoped key and a run key, and says which and with what scopes', () => {
  const t = hubWithClock();
  try {
    const { agent, key } = addAgent(t.hub, { name: 'ada' });
    const own = authenticateKey(t.hub, key);
    assert.equal(own.standing, 'ok');
    assert.ok(own.standing === 'ok' && own.kind === 'own' && own.user.id === agent.id);
    assert.deepEqual(own.standing === 'ok' && [...own.auth.scopes], [...KEY_SCOPES]);

    const scoped = addAgentKey(t.hub, { agent: 'ada', name: 'reader', scopes: ['read'] });
    const s = authenticateKey(t.hub, scoped.secret);
    assert.ok(s.standing === 'ok' && s.kind === 'scoped' && s.user.id === agent.id);
    assert.deepEqual(s.standing === 'ok' && [...s.auth.scopes], ['read']);

    let firstUses = 0;
    const run = issueRunKey(t.hub, agent.id, 'run_1', Date.now() + 60_000, () => {
      firstUses += 1;
    });
    const r = authenticateKey(t.hub, run.key);
    assert.ok(r.standing === 'ok' && r.kind === 'run' && r.user.id === agent.id);
    assert.deepEqual(r.standing === 'ok' && [...r.auth.scopes], [...KEY_SCOPES]);
    authenticateKey(t.hub, run.key);
    assert.equal(firstUses, 1, "a run's first call is told once");
    run.revoke();
    assert.equal(authenticateKey(t.hub, run.key).standing, 'revoked');
  } finally {
    t.close();
  }
});

test('authenticateKey refuses wrong, revoked and expired keys with their standing', () => {
  const t = hubWithClock();
  try {
    const { key } = addAgent(t.hub, { name: 'bob' });
    assert.equal(authenticateKey(t.hub, 'nonsense').standing, 'revoked');
    assert.equal(authenticateKey(t.hub, `${key}x`).standing, 'revoked');
    assert.equal(authenticateKey(t.hub, 'perch_run_not-a-live-run').standing, 'revoked');

    const short = addAgentKey(t.hub, { agent: 'bob', name: 'short', expires_at: Date.now() + 1000 });
    const standing = keyStanding(t.hub, short.secret, short.key.id ? authenticateOk(t.hub, short.secret) : '');
    assert.equal(standing(), 'ok');
    t.advance(2000);
    assert.equal(authenticateKey(t.hub, short.secret).standing, 'expired');
    assert.equal(standing(), 'expired');

    const other = addAgentKey(t.hub, { agent: 'bob', name: 'other' });
    revokeScopedKey(t.hub, other.key.id);
    assert.equal(authenticateKey(t.hub, other.secret).standing, 'revoked');

    revokeAgent(t.hub, 'bob');
    assert.equal(authenticateKey(t.hub, key).standing, 'revoked');
  } finally {
    t.close();
  }
});

function authenticateOk(hub: Parameters<typeof authenticateKey>[0], key: string): string {
  const r = authenticateKey(hub, key);
  assert.equal(r.standing, 'ok');
  return r.standing === 'ok' ? r.user.id : '';
}

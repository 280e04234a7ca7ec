// What a paired phone may do through the HTTPS front of a real `perch serve`: every owner action says which devices
// may call it (shared/api/owner-api.ts `device`: approvals, full or laptop), and what starts processes, mints or shows
// credentials or secrets, or manages devices stays on the laptop for every scope; and what an approvals phone gets
// of the live event stream (an allow-list: requests, the owner's handoffs and cards, the hub's connected/storage).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { DEVICE_REACH, OWNER_ACTIONS, type DeviceReach } from '../../src/shared/api/owner-api';
import { addAgent, eventually, startServe, tempDataDir, type AgentClient, connect, type Served } from '../support/serve-harness';
import { bearer, front, frontClient, PUBLIC, type FrontClient } from '../support/phone-front';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

/**
 * Every owner action and who may call it from a phone. A new action fails this test until it is classified here
 * (and in its contract entry): laptop-only when it starts processes (or sets what will), mints or returns
 * credentials or secrets, or manages devices and phone settings.
 */
const EXPECTED: Record<DeviceReach, string[]> = {
  approvals: ['hub.info', 'hub.storage', 'requests.list', 'requests.decide', 'cards.answer', 'handoffs.list', 'handoffs.hand_back'],
  full: [
    'conversations.list',
    'conversations.get',
    'conversations.history',
    'conversations.thread',
    'conversations.search',
    'conversations.open_direct',
    'conversations.create_group',
    'conversations.create_task',
    'conversations.add_member',
    'conversations.mark_read',
    'messages.send',
    'messages.edit',
    'messages.hide',
    'files.send',
    'messages.recall',
    'messages.react',
    'messages.pin',
    'messages.pins',
    'notes.send',
    'tasks.set',
    'floor.set',
    'agents.list',
    'agents.update_config',
    'agents.revoke',
    'agents.pause',
    'agents.resume',
    'agents.pause_all',
    'agents.resume_all',
    'agents.set_caps',
    'agents.controls',
    'agents.list_keys',
    'agents.revoke_key',
    'progress.list',
    'progress.activity',
    'agents.set_review',
    'held.list',
    'held.send',
    'held.discard',
    'wake.runs',
    'wake.stop',
    'conversations.resume',
    'agents.set_brakes',
    'rules.list',
    'rules.add',
    'rules.remove',
    'rules.import',
    'rules.suggestions',
    'rules.suggestion_accept',
    'rules.suggestion_dismiss',
    'conversations.archive',
    'conversations.unarchive',
    'retention.get',
    'retention.dry_run',
    'ledger.calls',
    'ledger.costs',
    'ledger.events',
  ],
  laptop: [
    'agents.add',
    'agents.rotate_key',
    'agents.add_key', // return a live agent key
    'agents.set_from', // widens where a key may connect from
    'files.url', // mints a file link
    'wake.get',
    'wake.set',
    'wake.log', // the webhook secret; sets the command a wake runs as the owner; run output
    'wake.start_now',
    'wake.limits.get',
    'wake.limits.set', // starts a process over the limit; the fleet-wide limits
    'containers.get',
    'containers.set', // opens (or shows) the listener for agents in containers
    'phone.get',
    'phone.set', // the ntfy topic (whoever knows it reads the notices); the phone settings
    'retention.set', // deletes history
    'devices.pair_start',
    'devices.pair_status',
    'devices.pair_confirm',
    'devices.pair_cancel',
    'devices.list',
    'devices.revoke',
    'devices.audit',
    'devices.test_push',
  ],
};

test('every owner action is classified for phones (approvals, full or laptop), and the contract says the same', () => {
  const actual: Record<DeviceReach, string[]> = { approvals: [], full: [], laptop: [] };
  for (const [name, spec] of Object.entries(OWNER_ACTIONS)) {
    assert.ok((DEVICE_REACH as readonly string[]).includes(spec.device), `${name} has a device reach`);
    actual[spec.device].push(name);
  }
  for (const reach of DEVICE_REACH)
    assert.deepEqual(actual[reach].sort(), [...EXPECTED[reach]].sort(), `actions a phone reaches as "${reach}"`);
});

describe('through the front of a real perch serve', () => {
  let served: Served;
  let phone: FrontClient;
  let agent: AgentClient;
  let sleeper: { id: string; name: string; key: string };
  let full: { token: string; device: R };
  let approvals: { token: string; device: R };

  before(async () => {
    served = await startServe(tempDataDir(), { args: ['--public-url', PUBLIC], env: { PERCH_WAKE_BACKOFF_MS: '300' } });
    phone = frontClient(served);
    const a = await addAgent(served.dataDir, 'worker');
    agent = await connect('v1', served.mcpUrl, a);
    sleeper = await addAgent(served.dataDir, 'sleeper');
    full = await phone.pair('Full phone', 'full');
    approvals = await phone.pair('Approvals phone', 'approvals', '100.101.102.104');
  });
  after(async () => {
    await agent?.close();
    await served?.stop();
  });

  test('a full-scope phone is refused (403) every laptop-only action, and nothing changes: no shell command set, no key issued or rotated, no secret shown', async () => {
    const inputs: Record<string, unknown> = {
      'agents.add': { name: 'phone-made' },
      'agents.rotate_key': { agent: sleeper.name },
      'agents.add_key': { agent: sleeper.name, name: 'from-phone' },
      'files.url': { file_id: 'f_0123456789abcdef' },
      'wake.get': { agent: sleeper.name },
      'wake.set': { agent: sleeper.name, shell: `touch ${path.join(served.dataDir, 'pwned')}` },
      'wake.log': { run_id: 'wr_0123456789abcdef' },
      'phone.set': { public_url: null },
      'devices.pair_status': { pairing_id: 'pair_0123456789abcdef' },
      'devices.pair_confirm': { pairing_id: 'pair_0123456789abcdef' },
      'devices.pair_cancel': { pairing_id: 'pair_0123456789abcdef' },
      'devices.revoke': { device_id: approvals.device.id },
      'devices.test_push': { device_id: full.device.id },
    };
    for (const action of EXPECTED.laptop) {
      for (const [who, dev] of [
        ['full', full],
        ['approvals', approvals],
      ] as const) {
        const r = await phone.deviceCall(dev.token, action, inputs[action] ?? {}, who === 'full' ? undefined : '100.101.102.104');
        assert.equal(r.status, 403, `${who} phone, ${action}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, 'forbidden');
        if (who === 'full') assert.match(r.body.error.message, /stay on the laptop/);
      }
    }
    // Nothing happened: no wake command, no new agent or key, the sleeper's key still works, the devices are as they were.
    const wake = (await phone.ownerOk('wake.get', { agent: sleeper.name })).wake;
    assert.equal(wake.action, null, 'no wake action was set from the phone');
    const agents = (await phone.ownerOk('agents.list')).agents as R[];
    assert.ok(!agents.some((a) => a.name === 'phone-made'), 'no agent was added');
    assert.deepEqual((await phone.ownerOk('agents.list_keys', { agent: sleeper.name })).keys, [], 'no extra key was issued');
    const c = await connect('v2', served.mcpUrl, sleeper);
    try {
      assert.equal((await c.ok('whoami')).name ?? (await c.ok('whoami')).agent?.name, sleeper.name, 'the key was not rotated');
    } finally {
      await c.close();
    }
    const devices = (await phone.ownerOk('devices.list')).devices as R[];
    assert.ok(
      devices.every((d) => !d.revoked),
      'no device was revoked',
    );
    // The device's own view of what it may call leaves them out; the refusals are in its audit.
    const me = await phone.raw('GET', '/api/device/me', front(undefined, [bearer(full.token)]));
    assert.deepEqual([...me.body.value.allowed_actions].sort(), [...EXPECTED.approvals, ...EXPECTED.full].sort());
    const audit = (await phone.ownerOk('devices.audit', { device_id: full.device.id, limit: 500 })).entries as R[];
    assert.ok(audit.some((e) => e.action === 'wake.set' && e.outcome === 'refused:forbidden' && e.target === sleeper.name));
    // The laptop may (control): the same wake.set works there.
    await phone.ownerOk('wake.set', { agent: sleeper.name, argv: [process.execPath, '-e', '0'] });
  });

  test("agents.update_config from a phone may not touch mcp_servers (commands the agent's harness may start): 403 naming the field, nothing changes; its other fields still work from a full phone", async () => {
    const before = (await phone.ownerOk('agents.list')).agents.find((a: R) => a.name === sleeper.name);
    const servers = [{ name: 'evil', command: 'sh', args: ['-c', `touch ${path.join(served.dataDir, 'pwned')}`] }];
    for (const [who, dev, addr] of [
      ['full', full, undefined],
      ['approvals', approvals, '100.101.102.104'],
    ] as const) {
      for (const input of [
        { agent: sleeper.name, mcp_servers: servers },
        { agent: sleeper.name, description: 'from the phone', mcp_servers: [] },
      ]) {
        const r = await phone.deviceCall(dev.token, 'agents.update_config', input, addr);
        assert.equal(r.status, 403, `${who}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, 'forbidden');
        assert.match(r.body.error.message, /mcp_servers can be changed only on the laptop/);
        assert.ok(r.body.error.next_step);
      }
    }
    const after = (await phone.ownerOk('agents.list')).agents.find((a: R) => a.name === sleeper.name);
    assert.deepEqual(after, before, 'the refused calls changed nothing (not the description either)');
    // The other fields still work from a full phone; mcp_servers still works on the laptop.
    const ok = await phone.deviceCall(full.token, 'agents.update_config', {
      agent: sleeper.name,
      description: 'set from the phone',
      skills: [{ name: 'triage' }],
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.value.agent.description, 'set from the phone');
    await phone.ownerOk('agents.update_config', { agent: sleeper.name, mcp_servers: [{ name: 'docs', url: 'https://example.com/mcp' }] });
    const audit = (await phone.ownerOk('devices.audit', { device_id: full.device.id, limit: 500 })).entries as R[];
    assert.ok(
      audit.some((e) => e.action === 'agents.update_config' && e.outcome === 'refused:forbidden'),
      'the refusal is in the device audit',
    );
  });

  test('a full-scope phone may add deny rules but not allow rules (403, nothing added), also not by answering a prompt "always allow"; each rule says who added it', async () => {
    const refusedAllow = await phone.deviceCall(full.token, 'rules.add', { agent: sleeper.name, tool: 'Bash', behavior: 'allow' });
    assert.equal(refusedAllow.status, 403, JSON.stringify(refusedAllow.body));
    assert.equal(refusedAllow.body.error.code, 'forbidden');
    assert.match(
      refusedAllow.body.error.message,
      /^A paired device \(Full phone\) may not add an allow rule: standing allows are added on the laptop only/,
    );
    const req = await agent.ok('request_human', {
      conv_id: (await agent.ok('open_direct', { user: (await phone.ownerOk('hub.info')).owner.name })).conversation.conv_id,
      kind: 'approve',
      title: 'Allow Bash: ls?',
    });
    const viaAnswer = await phone.deviceCall(full.token, 'rules.add', { request_id: req.request_id, behavior: 'allow' });
    assert.equal(viaAnswer.status, 403, JSON.stringify(viaAnswer.body));
    assert.deepEqual((await phone.ownerOk('rules.list', { agent: sleeper.name })).rules, [], 'no rule was added');
    const deny = await phone.deviceCall(full.token, 'rules.add', {
      agent: sleeper.name,
      tool: 'Bash',
      command_prefix: 'curl',
      behavior: 'deny',
    });
    assert.equal(deny.status, 200, JSON.stringify(deny.body));
    assert.deepEqual(deny.body.value.rule.added_by, { via: 'device', device_id: full.device.id, name: 'Full phone' });
    const allow = await phone.ownerOk('rules.add', { agent: sleeper.name, tool: 'Bash', command_prefix: 'ls', behavior: 'allow' });
    assert.deepEqual(allow.rule.added_by, { via: 'laptop' });
    const listed = (await phone.ownerOk('rules.list', { agent: sleeper.name })).rules as R[];
    assert.deepEqual(
      listed.map((r) => [r.behavior, r.added_by.via]),
      [
        ['allow', 'laptop'],
        ['deny', 'device'],
      ],
      'never used: the newest first',
    );
    const audit = (await phone.ownerOk('devices.audit', { device_id: full.device.id, limit: 500 })).entries as R[];
    assert.ok(
      audit.some((e) => e.action === 'rules.add' && e.outcome === 'refused:forbidden'),
      'the refusal is in the device audit',
    );
  });

  test("a full-scope phone still does what it may: message an agent (which wakes it with the owner's own wake action) and list its runs", async () => {
    const dm = await phone.deviceCall(full.token, 'conversations.open_direct', { user: sleeper.name });
    assert.equal(dm.status, 200, JSON.stringify(dm.body));
    const sent = await phone.deviceCall(full.token, 'messages.send', {
      conv_id: dm.body.value.conversation.conv_id,
      text: 'wake up',
      to: [sleeper.name],
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await eventually(
      async () => ((await phone.deviceCall(full.token, 'wake.runs', { agent: sleeper.name })).body.value.runs as R[]).length > 0,
      20_000,
      'the laptop-set wake action ran',
    );
  });

  test("an approvals phone's event stream has only requests, the owner's handoffs and cards, and connected/storage: no wake runs, waiting, reads, progress", async () => {
    const phoneStream = await phone.stream(approvals.token);
    const fullStream = await phone.stream(full.token); // control: the same happenings reach a full phone
    try {
      const info = await phone.ownerOk('hub.info');
      const dm = (await agent.ok('open_direct', { user: info.owner.name })).conversation.conv_id as string;
      // What must not reach the approvals phone: a wake run (agent, pid, why, errors, usage), waiting, progress, reads.
      await phone.ownerOk('wake.set', { agent: sleeper.name, argv: [process.execPath, '-e', '0'] }); // (set on the laptop)
      const sleeperDm = (await phone.ownerOk('conversations.open_direct', { user: sleeper.name })).conversation.conv_id;
      await phone.ownerOk('messages.send', { conv_id: sleeperDm, text: 'run again', to: [sleeper.name] });
      await phone.ownerOk('messages.send', { conv_id: dm, text: 'PLAIN-LINE' });
      await agent.ok('get_updates', {}); // reads it
      await agent.ok('get_updates', { wait_secs: 1 }); // confirms it (reads moved) and waits (waiting: true, then false)
      await agent.ok('progress', { conv_id: dm, kind: 'step', text: 'PROGRESS-LINE' });
      // What must: a request (the last thing; the stream is ordered).
      const req = await agent.ok('request_human', { conv_id: dm, kind: 'approve', title: 'SENTINEL' });
      await eventually(
        () => fullStream.text().includes('wake_run') && fullStream.text().includes(req.request_id),
        20_000,
        'the full phone saw the wake run and the request',
      );
      for (const published of ['"waiting"', '"reads"', 'PROGRESS-LINE', 'PLAIN-LINE'])
        assert.ok(fullStream.text().includes(published), `control: ${published} was published`);
      await eventually(() => phoneStream.text().includes(req.request_id), 20_000, 'the approvals phone saw the request');
      const items = phoneStream.items();
      assert.ok(
        items.every((i) => i.kind === 'hub' || i.kind === 'event'),
        `no progress items: ${[...new Set(items.map((i) => i.kind))].join(', ')}`,
      );
      for (const i of items.filter((x) => x.kind === 'hub')) {
        assert.deepEqual(
          Object.keys(i.value).filter((k) => !['connected', 'at', 'storage'].includes(k)),
          [],
          `hub item out of scope: ${JSON.stringify(i).slice(0, 300)}`,
        );
      }
      const text = phoneStream.text();
      for (const leak of ['wake_run', 'wake_off', 'waiting', 'budget_paused', '"reads"', 'PROGRESS-LINE', 'PLAIN-LINE', sleeper.id]) {
        assert.ok(!text.includes(leak), `the approvals phone did not get ${leak}`);
      }
      assert.ok(
        items.some((i) => i.kind === 'event' && i.value.event.type === 'request.created'),
        'the request arrived',
      );
    } finally {
      phoneStream.close();
      fullStream.close();
    }
  });
});

// Where a key may connect from (shared/agents/places.ts, hub/identity/places.ts): the places an owner can give, how a
// request's place is matched, and that a refusal is told to the owner once per agent, key and place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  coversEveryAddress,
  normalizePlaces,
  placeAllowed,
  placesWarning,
  PlacesError,
  LOCAL_PLACE,
  type RequestPlace,
} from '../../src/shared/agents/places';
import { authenticateKey } from '../../src/main/hub/identity/key-login';
import { setKeyPlaces } from '../../src/main/hub/identity/places';
import { addAgentKey } from '../../src/main/hub/identity/agent-keys';
import { withHub } from '../support/helpers';
import { runOwnerAction } from '../../src/main/owner/actions';
import { cli, removeDataDir, tempDataDir } from '../support/serve-harness';

const BOX: RequestPlace = { place: 'containers', address: '172.17.0.2', via: 'container bridge docker0 172.17.0.1' };
const FAR: RequestPlace = { place: 'tailnet', address: '100.64.0.9', via: 'tailnet, 100.64.0.9' };

test('places are normalized (known names first, ranges at their network address) and bad ones are named', () => {
  assert.deepEqual(normalizePlaces('Tailnet, local,172.17.0.9/16,local'), ['local', 'tailnet', '172.17.0.0/16']);
  assert.deepEqual(normalizePlaces(['containers']), ['containers']);
  for (const bad of ['', 'lan', '10.0.0.0/33', '300.1.1.1/8', 'fe80::/10', [1], {}, null]) {
    assert.throws(() => normalizePlaces(bad), PlacesError, JSON.stringify(bad));
  }
});

test('a place is allowed by name; a range allows callers in it on the container listener only', () => {
  assert.ok(placeAllowed(['local'], LOCAL_PLACE));
  assert.ok(!placeAllowed(['local'], BOX));
  assert.ok(placeAllowed(['containers'], BOX));
  assert.ok(placeAllowed(['172.17.0.0/16'], BOX));
  assert.ok(placeAllowed(['172.17.0.0/16'], { ...BOX, address: '::ffff:172.17.5.5' }));
  assert.ok(!placeAllowed(['172.18.0.0/16'], BOX));
  assert.ok(!placeAllowed(['127.0.0.0/8'], LOCAL_PLACE), 'a range never opens the loopback');
  assert.ok(!placeAllowed(['100.64.0.0/10'], FAR), 'nor the front');
  assert.ok(placeAllowed(['tailnet'], FAR));
});

test("through a container runtime's proxy on the loopback, only the name containers allows a key: the address is the proxy's", () => {
  const PROXIED: RequestPlace = {
    place: 'containers',
    address: '127.0.0.1',
    via: 'container runtime proxy on loopback (Host host.docker.internal)',
    proxied: true,
  };
  assert.ok(placeAllowed(['containers'], PROXIED));
  assert.ok(placeAllowed(['local', 'containers'], PROXIED));
  assert.ok(!placeAllowed(['local'], PROXIED));
  assert.ok(!placeAllowed(['127.0.0.0/8'], PROXIED), "a range holding the proxy's address does not match");
  assert.ok(placeAllowed(['127.0.0.0/8'], { ...PROXIED, proxied: undefined }), 'the same address on a container listener does');
});

test('a key refused for its place: standing place, told to the owner once per agent, key and place; places set anew take at once', () =>
  withHub(({ hub, agent }) => {
    const a = agent('boxed');
    const told: unknown[] = [];
    hub.bus.subscribe((item) => {
      if (item.kind === 'hub' && 'key_place_refused' in item.value) told.push(item.value.key_place_refused);
    });
    assert.equal(authenticateKey(hub, a.key, LOCAL_PLACE).standing, 'ok');
    assert.equal(authenticateKey(hub, a.key).standing, 'ok', 'without a place (a waiting call asking again) nothing is checked');
    assert.equal(authenticateKey(hub, a.key, BOX).standing, 'place');
    assert.equal(authenticateKey(hub, a.key, BOX).standing, 'place');
    assert.equal(authenticateKey(hub, a.key, FAR).standing, 'place');
    assert.equal(told.length, 2, 'once for containers, once for tailnet');
    assert.match((told[0] as { how: string }).how, /perch agent key from boxed local,containers/);
    setKeyPlaces(hub, { agent: 'boxed', from: ['containers'] });
    assert.equal(authenticateKey(hub, a.key, BOX).standing, 'ok');
    assert.equal(authenticateKey(hub, a.key, LOCAL_PLACE).standing, 'place');
    // a scoped key has its own places
    const { secret, key } = addAgentKey(hub, { agent: 'boxed', name: 'far', from: 'tailnet' });
    assert.equal(authenticateKey(hub, secret, FAR).standing, 'ok');
    assert.equal(authenticateKey(hub, secret, BOX).standing, 'place');
    assert.throws(() => setKeyPlaces(hub, { agent: 'boxed', key_id: key.id, from: ['nowhere'] }), /not valid/);
    assert.equal(authenticateKey(hub, secret, FAR).standing, 'ok', 'a bad place changed nothing');
  }));

test('a range covering every address (prefix /0) is told; ranges that only add up to everything are not', () => {
  for (const r of ['0.0.0.0/0', '10.1.2.3/0', '0.0.0.0/00', ' 0.0.0.0/0 ']) assert.ok(coversEveryAddress(r), r);
  for (const r of ['0.0.0.0/1', '128.0.0.0/1', '10.0.0.0/8', 'containers', 'local', '0.0.0.0', 'x/0', '::/0', '256.0.0.0/0'])
    assert.ok(!coversEveryAddress(r), r);
  assert.equal(placesWarning(['local', '0.0.0.0/1', '128.0.0.0/1']), undefined, 'two halves are not required to be told');
  assert.equal(placesWarning(['local', 'containers', '172.17.0.0/16']), undefined);
  assert.match(
    placesWarning(normalizePlaces('local,10.0.0.0/0'))!,
    /^0\.0\.0\.0\/0 covers every address: this key may then connect from any address a listener of this hub reaches/,
  );
});

test('agents.set_from, agents.add and agents.add_key keep a range covering every address and answer a warning with it; a narrower range has none', () =>
  withHub(async ({ hub, agent }) => {
    const a = agent('open');
    const r = setKeyPlaces(hub, { agent: 'open', from: ['local', '0.0.0.0/0'] });
    assert.deepEqual(r.from, ['local', '0.0.0.0/0']);
    assert.match(r.warning ?? '', /any address a listener of this hub reaches/);
    assert.equal(authenticateKey(hub, a.key, { ...BOX, address: '203.0.113.9' }).standing, 'ok', 'kept: any address on a listener');
    assert.equal(setKeyPlaces(hub, { agent: 'open', from: ['172.17.0.0/16'] }).warning, undefined);
    // the owner actions that set places answer it too: agents.set_from, agents.add and agents.add_key
    const set = (await runOwnerAction(hub, 'agents.set_from', { agent: 'open', from: ['0.0.0.0/0'] })) as {
      from: string[];
      warning?: string;
    };
    assert.deepEqual(set.from, ['0.0.0.0/0']);
    assert.match(set.warning ?? '', /^0\.0\.0\.0\/0 covers every address/);
    const added = (await runOwnerAction(hub, 'agents.add', { name: 'anywhere', from: ['containers', '0.0.0.0/0'] })) as {
      agent: { from: string[] };
      warning?: string;
    };
    assert.deepEqual(added.agent.from, ['containers', '0.0.0.0/0']);
    assert.match(added.warning ?? '', /covers every address/);
    const key = (await runOwnerAction(hub, 'agents.add_key', { agent: 'open', name: 'wide', from: ['0.0.0.0/0'] })) as {
      key: { from: string[] };
      warning?: string;
    };
    assert.deepEqual(key.key.from, ['0.0.0.0/0']);
    assert.match(key.warning ?? '', /covers every address/);
    const narrow = (await runOwnerAction(hub, 'agents.add_key', { agent: 'open', name: 'narrow', from: ['containers'] })) as {
      warning?: string;
    };
    assert.equal(narrow.warning, undefined);
  }));

test('perch agent key from AGENT 0.0.0.0/0 saves the place and prints one warning line on stderr; a narrower range prints none', () => {
  const dir = tempDataDir();
  try {
    assert.equal(cli(['agent', 'add', 'wide', '--data-dir', dir]).code, 0);
    const r = cli(['agent', 'key', 'from', 'wide', 'local,0.0.0.0/0', '--data-dir', dir]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /wide's own key may now connect from local, 0\.0\.0\.0\/0/);
    assert.equal(
      r.stderr,
      'perch: warning: 0.0.0.0/0 covers every address: this key may then connect from any address a listener of this hub reaches, not only your containers.\n',
    );
    const listed = JSON.parse(cli(['agent', 'list', '--data-dir', dir, '--json']).stdout);
    const wide = (Array.isArray(listed) ? listed : listed.agents).find((a: { name: string }) => a.name === 'wide');
    assert.deepEqual(wide.from, ['local', '0.0.0.0/0'], 'the place is saved');
    const narrow = cli(['agent', 'key', 'from', 'wide', 'local,172.17.0.0/16', '--data-dir', dir, '--json']);
    assert.deepEqual([narrow.code, narrow.stderr], [0, '']);
    const added = cli(['agent', 'key', 'add', 'wide', '--name', 'anywhere', '--from', '0.0.0.0/0', '--data-dir', dir, '--json']);
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stderr, /^perch: warning: 0\.0\.0\.0\/0 covers every address/);
    assert.equal(added.stderr.split('\n').length, 2, 'one line');
  } finally {
    removeDataDir(dir);
  }
});

// perch device list|revoke|pair: paired phones (hub/phone/devices.ts, hub/phone/pairing.ts).
import { parseArgs } from 'node:util';
import { listDevices, revokeDevice } from '../../hub/phone/devices';
import type { DeviceView, PairingStart, PairingView } from '../../../shared/features/devices';
import { DATA_DIR_LINE, UsageError, dataDirOf, fail, postJson, print, runtimeOf, withHub, type Command } from '../common';

export const device: Command = {
  names: ['device', 'devices'],
  usage: `  perch serve --public-url https://MACHINE.TAILNET.ts.net     (approve from your phone, see docs/guide/phone.md)
  perch device list|revoke ID|pair [--name NAME] [--scope approvals|full]
      Paired phones: list them, revoke one, or pair a new one (QR code in the terminal; the hub must run).`,
  help: () => `perch device list [--json]
perch device revoke ID [--json]
perch device pair [--name NAME] [--scope approvals|full] [--yes] [--json]
  Paired phones (approve from your phone through your HTTPS front; see docs/guide/phone.md).
  list    the devices with scope, last use, whether they get pushes (revoked ones too)
  revoke  ends a device's credential and its push subscription at once
  pair    needs the running hub and its public URL (perch serve --public-url URL): prints the link and its
          QR code, waits (5 minutes) for the phone to open it, shows the phrase both screens show, and asks
          y/N before the phone gets its credential (--yes: confirm without asking; --json: a line {url, pairing}
          when the link is ready, then a line {pairing, device} once paired). Scope approvals (default):
          the approvals inbox only; full: every owner action except pairing, devices and phone settings.
${DATA_DIR_LINE}`,
  run: cmdDevice,
};

function deviceLine(d: DeviceView): string {
  const used = d.last_used_at ? new Date(d.last_used_at).toISOString().replace('T', ' ').slice(0, 16) : 'never';
  return `${d.id}  ${d.name.padEnd(24)} ${d.scope.padEnd(9)} ${d.revoked ? 'revoked  ' : 'active   '} push ${d.push ? 'on ' : 'off'}  last used ${used}  credential ${d.token_hint}`;
}

async function cmdDevice(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      name: { type: 'string' },
      scope: { type: 'string' },
      yes: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (sub !== 'list' && sub !== 'revoke' && sub !== 'pair')
    throw new UsageError(`unknown device command ${JSON.stringify(sub ?? '')}: use list, revoke or pair`);
  if (values.scope !== undefined && values.scope !== 'approvals' && values.scope !== 'full')
    throw new UsageError('--scope must be approvals or full');
  const dataDir = dataDirOf(values);
  const json = !!values.json;
  if (sub === 'list') {
    return withHub(dataDir, (hub) => {
      const devices = listDevices(hub);
      print(json, { devices }, () =>
        devices.length
          ? devices.map(deviceLine).join('\n')
          : 'No paired devices. Pair a phone with `perch device pair` (or Settings → Phone).',
      );
    });
  }
  if (sub === 'revoke') {
    const id = positionals[0];
    if (!id) throw new UsageError('perch device revoke needs ID (see perch device list)');
    return withHub(dataDir, (hub) => {
      const d = revokeDevice(hub, id);
      print(json, { device: d }, () => `Revoked ${d.name} (${d.id}): its credential and its push subscription no longer work.`);
    });
  }
  // pair: through the running hub (the phone reaches that hub; its waits are woken there)
  const rt = runtimeOf(dataDir);
  const call = async (action: string, input: unknown): Promise<any> => {
    let r;
    try {
      r = await postJson(`${rt.base_url}/api/owner/${action}`, input, { Authorization: `Bearer ${rt.owner_token}` });
    } catch (e) {
      fail(`cannot reach the hub at ${rt.base_url}: ${(e as Error).message}. Is \`perch serve\` still running?`);
    }
    if (!r.json?.ok)
      fail(
        r.json?.error
          ? `${r.json.error.message} ${r.json.error.next_step ?? ''}`.trim()
          : `${r.status} unexpected answer: ${r.text.slice(0, 300)}`,
        1,
      );
    return r.json.value;
  };
  const start = (await call('devices.pair_start', { name: values.name, scope: values.scope })) as PairingStart;
  const QRCode = (await import('qrcode')).default;
  const qr = await QRCode.toString(start.url, { type: 'terminal', small: true });
  const say = (text: string) => {
    if (!json) process.stdout.write(text);
  };
  // --json: one line as soon as the link exists (a script needs the link to hand it to the phone), one when paired.
  if (json) print(true, { url: start.url, pairing: start.pairing }, () => '');
  say(`Open this on the phone (scan the QR code; it works once, for 5 minutes):\n\n${qr}\n  ${start.url}\n\nWaiting for the phone…\n`);
  let p: PairingView = start.pairing;
  // state: a phone that claims between two calls ends the next wait at once (not 30 s later).
  while (p.state === 'waiting')
    p = ((await call('devices.pair_status', { pairing_id: p.pairing_id, wait_secs: 30, state: p.state })) as { pairing: PairingView })
      .pairing;
  if (p.state !== 'claimed') fail(`the pairing is ${p.state}. Start again with \`perch device pair\`.`, 1);
  say(`\nThe phone (${p.device_name}) shows:   ${p.phrase}\n`);
  const yes = values.yes || (await askYesNo('Does the phone show the same words? [y/N] '));
  if (!yes) {
    await call('devices.pair_cancel', { pairing_id: p.pairing_id });
    fail('pairing cancelled; the code no longer works.', 1);
  }
  const done = (await call('devices.pair_confirm', { pairing_id: p.pairing_id, phrase: p.phrase ?? undefined })) as {
    pairing: PairingView;
    device: DeviceView;
  };
  print(
    json,
    { pairing: done.pairing, device: done.device },
    () =>
      `Paired ${done.device.name} (${done.device.id}, scope ${done.device.scope}). Revoke it any time: perch device revoke ${done.device.id}`,
  );
}

/** A y/N question on the terminal; anything but y/yes (or no terminal answer) is no. */
async function askYesNo(question: string): Promise<boolean> {
  const readline = await import('node:readline/promises');
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await Promise.race([rl.question(question), new Promise<string>((r) => rl.once('close', () => r('')))]);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

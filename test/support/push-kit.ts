// What the push tests over a real `perch serve` share (test/phone/push*.test.ts): one shared hub per test file that
// trusts a loopback HTTPS push endpoint (started here), paired devices on its file, and reading what reached the endpoint.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { ownerOk, runtimeInfo, useSharedServe, type AgentClient } from './serve-harness';
import {
  decryptPush,
  PUSH_TEST_ENV,
  startPushEndpoint,
  type PushEndpoint,
  type ReceivedPush,
  type TestSubscriptionKeys,
  pairDeviceOnFile,
} from './push-endpoint';

export type Payload = {
  type: 'notice' | 'clear';
  kind?: string;
  tag: string;
  title?: string;
  body?: string;
  url?: string;
  request_id?: string;
  read_token?: string;
  actions?: Array<{ action: string; title: string; token: string }>;
};

export const served = useSharedServe({ env: { ...PUSH_TEST_ENV } });

export let endpoint: PushEndpoint;
before(async () => {
  endpoint = await startPushEndpoint();
});
after(async () => {
  await endpoint?.close();
});

/** Pairs a device on the hub's own file (the pairing flow itself is tested in test/phone/phone-remote.test.ts). */
export const pairDevice = (name: string) => pairDeviceOnFile(served.dataDir, name);

export async function device(pathname: string, body: unknown, bearer?: string): Promise<{ status: number; json: any }> {
  const rt = runtimeInfo(served);
  const res = await fetch(rt.base_url + pathname, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}

export function open(p: ReceivedPush, keys: TestSubscriptionKeys): Payload {
  assert.equal(p.headers['content-encoding'], 'aes128gcm');
  return JSON.parse(decryptPush(p.body, keys)) as Payload;
}

export async function pushOf(
  pathname: string,
  keys: TestSubscriptionKeys,
  pred: (m: Payload) => boolean,
): Promise<{ raw: ReceivedPush; msg: Payload }> {
  const raw = await endpoint.next(pathname, (p) => {
    try {
      return pred(open(p, keys));
    } catch {
      return false;
    }
  });
  return { raw, msg: open(raw, keys) };
}

export async function directWithOwner(a: AgentClient): Promise<string> {
  const info = await ownerOk(served, 'hub.info');
  const dm = await a.ok('open_direct', { user: info.owner.name });
  return dm.conversation.conv_id as string;
}

// The owner's browser session: the one-time link becomes a session token kept in the hub origin's own storage
// (a reload and a new tab stay signed in; the token leaves the address bar), a page served from another
// 127.0.0.1 port gets nothing from the owner API and cannot read the token, a used link or an unknown session
// shows the sign-in screen, and signing out ends the session on the hub.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Page, Request } from 'playwright-core';
import { useHarness, openConversation, timeline } from './harness';
import { on } from './pages/on';
import { sidebar } from './pages/app';

const SESSION_KEY = 'perch.owner.session';

describe('owner session in the browser', () => {
  let other: http.Server;
  let otherOrigin: string;
  after(
    async () => {
      await new Promise((resolve) => (other ? other.close(resolve) : resolve(undefined)));
    },
    { timeout: 60_000 },
  );
  const h = useHarness({ agents: ['alice'] });

  before(
    async () => {
      // Another local web server, as the owner might run or visit one (a dev server, a tool's web UI).
      other = http.createServer((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><title>Some other local site</title><p>another port</p>');
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    },
    { timeout: 90_000 },
  );

  /** The owner's CLI token (runtime.json in the test's own temp data dir), for checks from outside the browser. */
  const cliToken = (): string =>
    (JSON.parse(fs.readFileSync(path.join(h().dataDir, 'runtime.json'), 'utf8')) as { owner_token: string }).owner_token;

  /** An owner action over HTTP from Node with the given bearer: the status and body. */
  async function ownerCall(bearer: string, action: string, input: unknown = {}): Promise<{ status: number; json: any }> {
    const res = await fetch(`${h().baseUrl}/api/owner/${action}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${bearer}` },
      body: JSON.stringify(input),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, json: await res.json() };
  }

  const storedSession = (page: Page): Promise<string | null> => page.evaluate((key) => localStorage.getItem(key), SESSION_KEY);
  const signedIn = (page: Page) => sidebar(page).waitFor({ timeout: 15_000 });
  const signInScreen = (page: Page) => on(page).heading('Sign in to Perch');

  test(
    'after login the token is gone from the address bar; a reload and a new tab stay signed in, with live updates',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      assert.ok(!page.url().includes('token'), `the address bar no longer holds the login token: ${page.url()}`);
      assert.equal(new URL(page.url()).pathname, '/');
      const session = await storedSession(page);
      assert.ok(session && session.length >= 40, "the session token is in the hub origin's localStorage");
      assert.equal((await h().context.cookies()).length, 0, 'no cookie at all');

      await page.reload();
      await signedIn(page);
      assert.equal(await signInScreen(page).count(), 0, 'the reload did not sign the owner out');
      await on(page).img('Live').first().waitFor({ timeout: 10_000 });
      const conv = (await h().agents.alice!.call('open_direct', { user: 'owner' })).conversation.conv_id as string;
      await h().agents.alice!.call('send_message', { conv_id: conv, text: 'Heard after the reload.' });
      await openConversation(page, 'alice');
      await timeline(page).text('Heard after the reload.').waitFor({ timeout: 10_000 });
      await h().agents.alice!.call('send_message', { conv_id: conv, text: 'And live over the stream.' });
      await timeline(page).text('And live over the stream.').waitFor({ timeout: 10_000 });

      const tab = await h().context.newPage();
      try {
        await tab.goto(`${h().baseUrl}/`, { timeout: 15_000 });
        await signedIn(tab);
        assert.equal(await signInScreen(tab).count(), 0, 'a new tab is signed in');
      } finally {
        await tab.close();
      }
    },
  );

  test(
    'a page served from another 127.0.0.1 port gets nothing from the owner API and cannot read the token',
    { timeout: 60_000 },
    async () => {
      const session = (await storedSession(h().page))!;
      // Same browser profile as the signed-in owner: whatever the browser would send along, it sends here too.
      const evil = await h().context.newPage();
      const toHub: Request[] = [];
      evil.on('request', (r) => {
        if (r.url().startsWith(`${h().baseUrl}/`)) toHub.push(r);
      });
      try {
        await evil.goto(`${otherOrigin}/`, { timeout: 15_000 });
        const seen = await evil.evaluate(
          async ({ hub, key }) => {
            // (No named inner functions here: the test runner's transform would reference a helper the page lacks.)
            const tries: Array<[string, RequestInit]> = [
              [
                `${hub}/api/owner/hub.info`,
                { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: '{}' },
              ],
              [
                `${hub}/api/owner/agents.add`,
                {
                  method: 'POST',
                  mode: 'no-cors',
                  credentials: 'include',
                  headers: { 'Content-Type': 'text/plain' },
                  body: JSON.stringify({ name: 'from-another-port' }),
                },
              ],
              [`${hub}/api/owner/events`, { credentials: 'include' }],
            ];
            const [read, blindWrite, events] = await Promise.all(
              tries.map(([url, init]) =>
                fetch(url, init).then(
                  async (res) => `status ${res.status} type ${res.type} body ${await res.text()}`,
                  (err: unknown) => `refused: ${String(err)}`,
                ),
              ),
            );
            return { read: read!, blindWrite: blindWrite!, events: events!, storage: localStorage.getItem(key), cookies: document.cookie };
          },
          { hub: h().baseUrl, key: SESSION_KEY },
        );

        assert.match(seen.read, /^refused/, `reading an owner action: ${seen.read}`);
        assert.match(seen.events, /^refused/, `opening the event stream: ${seen.events}`);
        assert.match(seen.blindWrite, /^status 0 type opaque body $/, 'a no-cors write gets an opaque nothing');
        assert.equal(seen.storage, null, "the other port's storage does not hold the hub's session");
        assert.equal(seen.cookies, '', 'no cookie to read');

        const answered = await Promise.all(
          toHub.map(async (r) => ({ r, res: await r.response().catch(() => null), headers: await r.allHeaders() })),
        );
        assert.ok(answered.length >= 1, 'the attempts reached the hub');
        for (const { r, res, headers } of answered) {
          if (res) assert.equal(res.status(), 403, `the hub refused ${r.method()} ${r.url()}`);
          assert.equal(headers.authorization, undefined, `no credential went along with ${r.method()} ${r.url()}`);
          assert.ok(!JSON.stringify(headers).includes(session), "the session token never left the hub's own pages");
        }
        assert.ok(
          answered.some(({ res }) => res?.status() === 403),
          'the hub answered 403',
        );
        const agents = await ownerCall(cliToken(), 'agents.list');
        assert.ok(
          !agents.json.value.agents.some((a: { name: string }) => a.name === 'from-another-port'),
          'the blind write changed nothing',
        );
        assert.equal((await ownerCall(session, 'hub.info')).status, 200, "the owner's session is unharmed");
      } finally {
        await evil.close();
      }
    },
  );

  test('a used login link and an unknown stored session show the sign-in screen', { timeout: 60_000 }, async () => {
    const link = (await ownerCall(cliToken(), 'login-link')).json.value.url as string;
    assert.match(link, /\/login#token=/);
    const first = await h().browser.newContext();
    const second = await h().browser.newContext();
    try {
      const a = await first.newPage();
      await a.goto(link, { timeout: 15_000 });
      await signedIn(a);
      const b = await second.newPage();
      await b.goto(link, { timeout: 15_000 });
      await signInScreen(b).waitFor();
      await on(b).alert().text('This login link was used already or has expired.').waitFor();
      assert.ok(!b.url().includes('token'), 'the spent token is gone from the address bar too');
      assert.equal(await storedSession(b), null);

      await b.evaluate((key) => localStorage.setItem(key, 'an-unknown-session-token-of-enough-length-000'), SESSION_KEY);
      await b.reload();
      await signInScreen(b).waitFor();
      assert.equal(await storedSession(b), null, 'an unknown session is forgotten');
    } finally {
      await first.close();
      await second.close();
    }
  });

  test(
    'sign out ends the session on the hub, clears the storage and shows the sign-in screen; a reload stays signed out',
    { timeout: 60_000 },
    async () => {
      const { page } = h();
      const session = (await storedSession(page))!;
      assert.equal((await ownerCall(session, 'hub.info')).status, 200);
      await sidebar(page).button('Sign out').click();
      await signInScreen(page).waitFor();
      assert.equal(await storedSession(page), null, 'the browser forgot the session');
      const after = await ownerCall(session, 'hub.info');
      assert.equal(after.status, 401, 'the hub ended the session');
      assert.equal(after.json.error.code, 'unauthorized');
      await page.reload();
      await signInScreen(page).waitFor();
      assert.equal(await sidebar(page).count(), 0);
      await h().screenshot('signed-out');
    },
  );
});

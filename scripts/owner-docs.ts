// Writes docs/owner-api.md from the owner API contract (src/shared/api/owner-api.ts), so the two never drift.
// `node --import tsx scripts/owner-docs.ts` writes it; `--check` fails when it is out of date.
import fs from 'node:fs';
import { z } from 'zod';
import { OWNER_ACTIONS, type DeviceReach } from '../src/shared/api/owner-api';

const REACH_TEXT: Record<DeviceReach, string> = {
  approvals: 'any paired device',
  full: 'full-scope devices only',
  laptop: 'laptop only (no paired device)',
};

export function ownerApiMarkdown(): string {
  const out: string[] = [
    '# Owner API',
    '',
    'Everything the owner (the one human) can do in Perch. The desktop window calls it over IPC; the browser UI,',
    'scripts and `perch owner` call it over loopback HTTP. This file is generated from `src/shared/api/owner-api.ts`',
    '(`node --import tsx scripts/owner-docs.ts`); a test fails when it is out of date.',
    '',
    '## Calling it',
    '',
    '- `POST http://127.0.0.1:PORT/api/owner/<action>` with a JSON body; the answer is',
    '  `{"ok": true, "value": …}` or `{"ok": false, "error": {"code", "message", "next_step"}}` (HTTP 4xx/5xx).',
    "- Who may call: `Authorization: Bearer <token>` with either the token in the data dir's `runtime.json`",
    '  (readable only by you), which `perch owner` uses, or a browser session token. No agent key opens it, and no',
    '  cookie: browsers send cookies to every port of 127.0.0.1.',
    '- Browser sessions: the one-time login link (`perch serve` prints it; `perch owner login-link` makes another) is',
    '  `http://127.0.0.1:PORT/login#token=…`, the token in the fragment so it never reaches a server or a Referer.',
    '  The UI page POSTs it once to `/api/owner/session` (`{"token": …}` → `{"session", "expires_at"}`, 30 days),',
    "  keeps the session in its own origin's `localStorage` and sends it as the bearer. `POST /api/owner/logout`",
    '  with the session as bearer ends it. An expired, ended or unknown token is 401 `unauthorized`.',
    "- Only the hub's own origin: a request whose `Origin` is not `http://127.0.0.1:PORT` or `http://localhost:PORT`",
    '  of this hub (another loopback port included) is refused 403 `forbidden`, for actions, events, login and logout.',
    '- Paired devices (phones): through the HTTPS front named by the public URL (`phone.set`, `perch serve',
    "  --public-url`) a request is remote (a non-loopback Host, the public origin, or a front's `X-Forwarded-*`,",
    '  `Forwarded`, `X-Real-IP` or `Tailscale-*` headers); it needs `Authorization: Bearer pd_…` (a device credential',
    "  from pairing) and the owner's tokens are refused (401). Each action below says which devices may call it:",
    '  **any paired device** (scope `approvals` or `full`: the approvals inbox; cards.answer only for cards addressed',
    "  to the owner, handoffs only the owner's), **full-scope devices**, or **laptop only** (no device, whatever its",
    '  scope: what starts processes or sets what will, what mints or shows credentials or secrets — agent keys, the',
    '  webhook secret, run logs, file links, the ntfy topic — and device and phone settings). Some actions a device may',
    "  call keep a field for the laptop (`agents.update_config`'s `mcp_servers`: commands an agent's harness may start);",
    '  a device that sends it is refused 403 naming the field, and nothing changes. Anything else is 403;',
    '  every device call is in `devices.audit` (refusals of callers without a device credential are counted there in',
    "  aggregate: one row per 10 minutes with a `count`, never pushing out a device's own entries). Funnel",
    '  (`Tailscale-Funnel-Request`) is always 403; remote /mcp, login and /files are 403. The device door:',
    '  `POST /api/device/pair/claim`, `POST /api/device/pair/wait`, `GET /api/device/me` (pairing claims and waits are',
    "  limited per caller and per pairing code or pairing, so a stranger cannot lock the owner's phone out).",
    "- A device's live events (`GET /api/owner/events` with a device credential): scope `approvals` gets only requests,",
    "  handoffs to the owner, cards addressed to the owner and the hub's `connected` and `storage` items; any other kind",
    '  of item (progress, wake runs, waiting, reads, budget pauses, and any kind added later) is left out.',
    '- Live events: `GET /api/owner/events` (Server-Sent Events, with the same bearer; the UI reads it with',
    '  `fetch()`, as `EventSource` cannot send a header). Each `data:` line is one JSON item:',
    '  `{"kind":"event","value":{"event":EventView,"woken":[user ids]}}`, `{"kind":"progress","value":ProgressView}`',
    '  or `{"kind":"hub","value":{…}}`.',
    '- A full disk: while the hub cannot save, writing actions answer HTTP 507 with code `storage_full` (nothing was',
    '  saved) and reads go on; the live stream sends `{"kind":"hub","value":{"storage":{"state":"full","since","message"}}}`',
    '  when it starts and `state: "ok"` when saving works again (by itself, with the next write). See `hub.storage`.',
    '- Bodies are at most 1 MiB, except `files.send`: its file travels as base64 in `data` (at most 16 MiB decoded),',
    "  so its body may be up to the same size as an agent's `send_file` call (`LIMITS.maxFileBodyBytes`). The limit is",
    '  applied only once the caller is known (401 first); a larger body, or a file over 16 MiB decoded, is 413',
    '  `too_large` (saying the limit and to send a smaller file or split it; nothing is stored). The browser UI sends it',
    "  with `XMLHttpRequest` to show the upload's progress; the desktop window over IPC.",
    '- From a shell: `perch owner ACTION \'{json}\'` (for example `perch owner requests.list \'{"state":"pending"}\'`),',
    '  `perch owner login-link` for a new browser login link, `perch owner --help` for the list. The input may also',
    "  come from a file (`@input.json`) or stdin (`-`), for inputs too long for a command line (a file's base64).",
    '',
    '## Actions',
    '',
  ];
  for (const [name, spec] of Object.entries(OWNER_ACTIONS)) {
    const schema = z.toJSONSchema(spec.input as z.ZodType, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, { type?: string; enum?: string[]; description?: string }>;
      required?: string[];
    };
    const laptopFields = spec.laptopFields.length
      ? `; ${spec.laptopFields.map((f) => `\`${f}\``).join(', ')} only on the laptop (a device that sends ${spec.laptopFields.length > 1 ? 'any of them' : 'it'} is refused 403, nothing changes)`
      : '';
    out.push(`### \`${name}\``, '', spec.description, '', `From a phone: ${REACH_TEXT[spec.device]}${laptopFields}.`, '');
    const props = Object.entries(schema.properties ?? {});
    if (props.length === 0) {
      out.push('No input.', '');
      continue;
    }
    out.push('| Field | Type | Required |', '|---|---|---|');
    for (const [field, p] of props) {
      const type = p.enum ? p.enum.map((e) => `\`${e}\``).join(' \\| ') : (p.type ?? 'any');
      out.push(`| \`${field}\` | ${type} | ${schema.required?.includes(field) ? 'yes' : ''} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

if (process.argv[1] && process.argv[1].endsWith('owner-docs.ts')) {
  const text = ownerApiMarkdown();
  const file = 'docs/owner-api.md';
  if (process.argv.includes('--check')) {
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) {
      console.error(`${file} is out of date: run node --import tsx scripts/owner-docs.ts`);
      process.exit(1);
    }
  } else {
    fs.mkdirSync('docs', { recursive: true });
    fs.writeFileSync(file, text);
    console.log(`wrote ${file}`);
  }
}

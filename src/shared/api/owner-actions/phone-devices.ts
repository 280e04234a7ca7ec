// Owner actions of phone approvals: the HTTPS front settings, pairing and paired devices.
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id } from './define';
import { DEVICE_SCOPES, MAX_DEVICE_NAME_CHARS, PUSH_CONTENT } from '../../features/devices';

export const phoneDeviceActions = {
  // phone approvals: remote access through an HTTPS front, paired devices, push (hub/phone/devices.ts, hub/phone/notify.ts)
  'phone.get': {
    device: 'laptop',
    description:
      'Phone settings: the public URL of the HTTPS front (tailscale serve), what pushes carry (summary or ids), the ntfy channel, and the Web Push key.',
    input: () => z.strictObject({}),
  },
  'phone.set': {
    device: 'laptop',
    description:
      'Change phone settings. public_url: the https URL of the front (null: no remote access); push_content: summary (default) or ids; ntfy: {server, topic, opaque} or null.',
    input: () =>
      z.strictObject({
        public_url: z.string().max(300).nullable().optional(),
        push_content: z.enum(PUSH_CONTENT).optional(),
        ntfy: z
          .strictObject({ server: z.string().min(1).max(300), topic: z.string().min(1).max(64), opaque: z.boolean().optional() })
          .nullable()
          .optional(),
      }),
  },
  'devices.pair_start': {
    device: 'laptop',
    description:
      'Start pairing a phone: a single-use code (5 minutes) in a link and its QR code. Needs the public URL set. scope: approvals (default) or full.',
    input: () => z.strictObject({ name: z.string().max(MAX_DEVICE_NAME_CHARS).optional(), scope: z.enum(DEVICE_SCOPES).optional() }),
  },
  'devices.pair_status': {
    device: 'laptop',
    description:
      "A pairing's state: waiting for the phone, claimed (the phrase to compare), confirmed, expired or cancelled. wait_secs waits until it changes; state (the state you last saw) ends the wait at once when it differs already.",
    input: () =>
      z.strictObject({
        pairing_id: id(),
        wait_secs: z.number().int().min(0).max(30).optional(),
        state: z.enum(['waiting', 'claimed', 'confirmed', 'expired', 'cancelled']).optional(),
      }),
  },
  'devices.pair_confirm': {
    device: 'laptop',
    description: 'Confirm a claimed pairing once both screens show the same phrase: the phone gets its credential.',
    input: () => z.strictObject({ pairing_id: id(), phrase: z.string().max(100).optional() }),
  },
  'devices.pair_cancel': {
    device: 'laptop',
    description: 'Cancel a pairing (the code stops working).',
    input: () => z.strictObject({ pairing_id: id() }),
  },
  'devices.list': {
    device: 'laptop',
    description: 'Paired devices with scope, last use and whether they get pushes (revoked ones too).',
    input: () => z.strictObject({}),
  },
  'devices.revoke': {
    device: 'laptop',
    description: 'Revoke a device: its credential and its push subscription stop at once.',
    input: () => z.strictObject({ device_id: id() }),
  },
  'devices.audit': {
    device: 'laptop',
    description: 'What devices did through the front, newest first (one device or all).',
    input: () => z.strictObject({ device_id: id().optional(), limit: z.number().int().min(1).max(500).optional() }),
  },
  'devices.test_push': {
    device: 'laptop',
    description: 'Send a test push to a device (Web Push, and ntfy when set); answers what each channel did.',
    input: () => z.strictObject({ device_id: id() }),
  },
} as const satisfies ActionDefs;

// What an owner action declaration is (src/shared/api/owner-actions/*.ts), and the input pieces they share.
import { z } from 'zod';
import { LIMITS } from '../../limits';
import { MAX_PLACES } from '../../agents/places';

export const id = () => z.string().min(1).max(256);
/** A key's places (shared/agents/places.ts); the hub checks each one (a bad one: invalid_argument, nothing changed). */
export const places = () => z.array(z.string().min(1).max(60)).min(1).max(MAX_PLACES);
export const text = () => z.string().min(1).max(LIMITS.maxTextChars);

/**
 * Which paired devices (phones through the HTTPS front) may call an action; every action says it, so a new one is
 * classified when it is written (test/phone/phone-laptop-only.test.ts lists them all).
 * - approvals: any paired device (scope approvals or full): the approvals inbox and what it needs.
 * - full: devices of scope full only.
 * - laptop: no device, whatever its scope: anything that starts processes or sets what will start them, mints or
 *   shows credentials or secrets (agent keys, webhook secrets, run logs, file links, the ntfy topic), and device
 *   management and phone settings. The owner does these on the laptop.
 * An action a device may call can still keep some of its input fields for the laptop (`laptopFields`): a device that
 * sends any of them (whatever its value) is refused like a laptop-only action, and nothing changes.
 */
export const DEVICE_REACH = ['approvals', 'full', 'laptop'] as const;
export type DeviceReach = (typeof DEVICE_REACH)[number];

export type ActionDefs = Record<
  string,
  { readonly device: DeviceReach; readonly laptopFields?: readonly string[]; readonly description: string; readonly input: () => z.ZodType }
>;

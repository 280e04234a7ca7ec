// The settings that decide what a hub's ready line says, by their keys: the HTTPS front's URL (hub/phone/devices.ts
// saves it) and the container listener's switch (container-switch.ts). Here apart, so that `perch serve` reads them
// before its ready line without loading the modules that change them (cli/serve-front.ts).
import type { Db } from '../../db/db';
import { getSetting } from './settings';

export const PUBLIC_URL_SETTING = 'phone.public_url';
export const CONTAINERS_SETTING = 'containers_listener';

/** The public URL of the front, or null when remote access is off. */
export function publicUrlSetting(db: Db): string | null {
  const v = getSetting(db, PUBLIC_URL_SETTING);
  return v ? v : null;
}

/** Whether the owner turned the container listener on (saved; read at start). */
export function containersSettingOn(db: Db): boolean {
  return getSetting(db, CONTAINERS_SETTING) === 'on';
}

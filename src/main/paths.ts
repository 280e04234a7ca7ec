// Where Perch keeps its data: the OS's per-user app data folder, unless PERCH_DATA_DIR or --data-dir says otherwise.
import os from 'node:os';
import path from 'node:path';

export const DEFAULT_PORT = 7457;

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PERCH_DATA_DIR) return path.resolve(env.PERCH_DATA_DIR);
  const home = os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Perch');
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Perch');
    default:
      return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'perch');
  }
}

export const RUNTIME_FILE = 'runtime.json';

/** --data-dir DIR, or PERCH_DATA_DIR, or the default; absolute. */
export function dataDirOf(values: { 'data-dir'?: string }): string {
  return path.resolve(values['data-dir'] ?? defaultDataDir());
}

// A real full disk for tests: a small tmpfs mounted on a fresh folder (root on Linux), filled to the last byte.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Mounts a tmpfs of `size` (e.g. '8m') on a fresh folder: its path, or why it cannot be done here. */
export function smallDisk(size: string): { dir?: string; why?: string } {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return { why: 'needs root on Linux to mount a small tmpfs' };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-smalldisk-'));
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { encoding: 'utf8', timeout: 10_000 });
  if (r.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { why: `cannot mount a tmpfs here (${(r.stderr || String(r.error)).trim()})` };
  }
  return { dir };
}

export function unmount(dir: string): void {
  spawnSync('umount', ['-l', dir], { timeout: 10_000 });
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Fills the filesystem holding dir to the last byte (bounded): big writes, then single bytes, until ENOSPC. */
export function fillDisk(dir: string, name = 'filler'): string {
  const file = path.join(dir, name);
  const fd = fs.openSync(file, 'w');
  try {
    for (const chunk of [Buffer.alloc(64 * 1024), Buffer.alloc(4096), Buffer.alloc(1)]) {
      for (let i = 0; i < 100_000; i++) {
        try {
          fs.writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  assert.equal(fs.statfsSync(dir).bavail, 0, 'the disk is full');
  return file;
}

// No hand-written source file over 600 lines (docs/testing.md): what one reads in a sitting. A file that grows past it
// is split by job, each part named for what it holds. Generated files (*.generated.*) and test fixtures
// (test/fixtures/) are not hand-written source and are left out; so are the stylesheets (src/renderer/*.css), one
// cascade each, read by selector, not in a sitting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const MAX_LINES = 600;
const FOLDERS = ['src', 'test', 'e2e', 'bench', 'scripts'];
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'artifacts', 'results', 'dist']);

/** Every hand-written source file under the folders, relative to root. */
function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name) && rel !== path.join('test', 'fixtures')) walk(rel);
      } else if (SOURCE.test(e.name) && !e.name.includes('.generated.')) out.push(rel);
    }
  };
  for (const f of FOLDERS) if (fs.existsSync(path.join(root, f))) walk(f);
  return out.sort();
}

function lineCount(file: string): number {
  const text = fs.readFileSync(file, 'utf8');
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** The files over the cap, one line each: "path: N lines". */
function oversizedFiles(root: string, max = MAX_LINES): string[] {
  return sourceFiles(root)
    .map((f) => [f, lineCount(path.join(root, f))] as const)
    .filter(([, n]) => n > max)
    .map(([f, n]) => `${f}: ${n} lines`);
}

test(`no hand-written source file in ${FOLDERS.join(', ')} is over ${MAX_LINES} lines`, () => {
  assert.deepEqual(oversizedFiles(ROOT), [], `split these by job (each part named for what it holds):`);
});

test('the size check counts lines and leaves out generated files and fixtures', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-size-'));
  try {
    const write = (rel: string, lines: number) => {
      fs.mkdirSync(path.join(root, path.dirname(rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), 'x\n'.repeat(lines));
    };
    write('src/big.ts', MAX_LINES + 1);
    write('src/fits.ts', MAX_LINES);
    write('src/schema.generated.ts', 5000);
    write('test/fixtures/contract-data.ts', 5000);
    write('bench/results/run.js', 5000);
    write('e2e/long.spec.ts', MAX_LINES + 40);
    assert.deepEqual(oversizedFiles(root), [`e2e/long.spec.ts: ${MAX_LINES + 40} lines`, `src/big.ts: ${MAX_LINES + 1} lines`]);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

// The shape rules of eslint/perch-rules.mjs, proven on small trees written for each test (a wrong-way import
// between areas and an import circle both fail lint) and on the project itself (no circle anywhere in src/).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
// @ts-expect-error plain ESM module without types
import perch from '../../eslint/perch-rules.mjs';
// @ts-expect-error plain ESM module without types
import { circles, importGraph } from '../../scripts/import-graph.mjs';

const ROOT = path.resolve(__dirname, '..', '..');

function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-lint-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

async function lint(dir: string, rules: Record<string, unknown>): Promise<Array<{ file: string; rule: string | null; message: string }>> {
  const eslint = new ESLint({
    cwd: dir,
    overrideConfigFile: true,
    overrideConfig: [
      { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser as never }, plugins: { perch }, rules: rules as never },
    ],
  });
  const results = await eslint.lintFiles(['src/**/*.ts']);
  return results.flatMap((r) => r.messages.map((m) => ({ file: path.relative(dir, r.filePath), rule: m.ruleId, message: m.message })));
}

const HUB_AREAS = { root: 'src/main/hub', allowed: { core: [], talk: ['core'], tools: ['core', 'talk'] } };

describe('lint: shape rules', () => {
  it('an import circle fails lint on every file in it, type-only imports included; a one-way chain passes', async () => {
    const dir = tree({
      'src/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
      'src/b.ts': "import type { C } from './c';\nexport const b = 1 as unknown as C;\n",
      'src/c.ts': "import { a } from './a';\nexport type C = ReturnType<typeof a>;\n",
      'src/d.ts': "import { a } from './a';\nexport const d = a;\n",
    });
    try {
      const found = await lint(dir, { 'perch/no-import-circle': ['error', { root: 'src' }] });
      assert.deepEqual(found.map((f) => f.file).sort(), ['src/a.ts', 'src/b.ts', 'src/c.ts']);
      assert.ok(
        found.every((f) => f.rule === 'perch/no-import-circle' && /Import circle among a\.ts, b\.ts, c\.ts/.test(f.message)),
        JSON.stringify(found),
      );
      fs.writeFileSync(path.join(dir, 'src/c.ts'), 'export type C = number;\n');
      assert.deepEqual(await lint(dir, { 'perch/no-import-circle': ['error', { root: 'src' }] }), []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an import against the direction of the areas fails lint, at any depth; the allowed direction passes', async () => {
    const dir = tree({
      'src/main/hub/core/hub.ts': "import { send } from '../talk/messages';\nexport const hub = send;\n",
      'src/main/hub/talk/messages.ts': "import type { H } from '../core/deep/types';\nexport const send = (h: H) => h;\n",
      'src/main/hub/core/deep/types.ts': "import { tool } from '../../tools/map';\nexport type H = typeof tool;\n",
      'src/main/hub/tools/tools/map.ts': "import { send } from '../talk/messages';\nexport const tool = send;\n",
      'src/main/hub/stray.ts': "import { tool } from './tools/map';\nexport const x = tool;\n",
    });
    try {
      const found = await lint(dir, { 'perch/area-direction': ['error', { layers: [HUB_AREAS] }] });
      const byFile = Object.fromEntries(found.map((f) => [f.file, f.message]));
      assert.deepEqual(Object.keys(byFile).sort(), [
        'src/main/hub/core/deep/types.ts',
        'src/main/hub/core/hub.ts',
        'src/main/hub/stray.ts',
      ]);
      assert.match(byFile['src/main/hub/core/hub.ts'], /src\/main\/hub\/core may not import src\/main\/hub\/talk/);
      assert.match(byFile['src/main/hub/core/deep/types.ts'], /core may not import src\/main\/hub\/tools/);
      assert.match(byFile['src/main/hub/stray.ts'], /stray\.ts is not in an area of src\/main\/hub/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the project has no import circle in src/', () => {
    const found = (circles(importGraph(path.join(ROOT, 'src'))) as string[][]).map((c) => c.map((f) => path.relative(ROOT, f)));
    assert.deepEqual(found, []);
  });
});

// docs/architecture.md cannot rot: every path it names in backticks exists, every symbol named right after a path
// (`src/x.ts` `symbol`, or `src/folder` `symbol` when a split may move it between the folder's files) is declared
// there, every `perch/...` lint rule is defined and switched on, and each walk lists at most 6 server files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const DOC = path.join(ROOT, 'docs', 'architecture.md');
const MAX_WALK_FILES = 6;

const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?$/;
const PATHLIKE = /^[\w.-]+(?:\/[\w.-]+)*\/?$/;
const FILE_EXT = /\.(?:ts|tsx|js|mjs|json|md|css|html|webmanifest)$/;

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

const SRC_FILES = filesUnder(path.join(ROOT, 'src'));

/** Where a path named in the doc is: from the repository root, else below src/main or src/ (shorthand), else a file name found under src/. */
function resolvePath(p: string): string | undefined {
  const clean = p.replace(/\/$/, '');
  for (const base of ['', 'src/main', 'src']) {
    const full = path.join(ROOT, base, clean);
    if (fs.existsSync(full)) return full;
  }
  if (!clean.includes('/')) return SRC_FILES.find((f) => path.basename(f) === clean);
  return undefined;
}

const escape = (s: string) => s.replace(/[$]/g, '\\$');

/** Whether text declares name (function, class, interface, type, enum, const/let/var, or a re-export). */
function declares(text: string, name: string): boolean {
  const n = escape(name);
  return (
    new RegExp(`\\b(?:function\\*?|class|interface|type|enum|const|let|var)\\s+${n}\\b`).test(text) ||
    new RegExp(`\\bexport\\s+(?:type\\s+)?\\{[^}]*\\b${n}\\b[^}]*\\}`).test(text)
  );
}

/** Whether text declares a member (method, property, getter, or an object literal's key). */
function declaresMember(text: string, member: string): boolean {
  const m = escape(member);
  return new RegExp(
    `^\\s*(?:(?:public|private|protected|static|readonly|async|get|set|override)\\s+)*['"]?${m}['"]?\\s*[?!]?\\s*[(<:=]`,
    'm',
  ).test(text);
}

function symbolProblem(where: string, files: string[], symbol: string): string | undefined {
  const [owner, member] = symbol.split('.') as [string, string | undefined];
  const ok = files.some((f) => {
    const text = fs.readFileSync(f, 'utf8');
    return declares(text, owner) && (member === undefined || declaresMember(text, member));
  });
  return ok ? undefined : `\`${where}\` \`${symbol}\`: not declared there`;
}

/** Every problem with the doc's references: missing paths, symbols not declared where named, walks too long. */
function problemsIn(markdown: string): string[] {
  const problems: string[] = [];
  const fence = /^```[^\n]*\n([\s\S]*?)^```$/gm;
  // Fenced blocks: every src/... path in them (globs aside) must exist.
  for (const block of markdown.matchAll(fence)) {
    for (const [p] of block[1]!.matchAll(/\bsrc\/[\w./-]*/g)) {
      if (p.includes('*') || /\.$/.test(p)) continue;
      if (!resolvePath(p)) problems.push(`${p} (in a code block): no such file or folder`);
    }
  }
  const prose = markdown.replace(fence, (m) => '\n'.repeat(m.split('\n').length - 1));
  const spans = [...prose.matchAll(/`([^`\n]+)`/g)].map((m) => ({ text: m[1]!, start: m.index!, end: m.index! + m[0].length }));
  const lintConfig = fs.readFileSync(path.join(ROOT, 'eslint.config.mjs'), 'utf8');
  const lintRules = fs.readFileSync(path.join(ROOT, 'eslint', 'perch-rules.mjs'), 'utf8');
  for (let i = 0; i < spans.length; i++) {
    const s = spans[i]!;
    const rule = /^perch\/([\w-]+)$/.exec(s.text);
    if (rule) {
      // Perch's own lint rules: defined in eslint/perch-rules.mjs and switched on in eslint.config.mjs.
      if (!lintRules.includes(`'${rule[1]}':`) || !lintConfig.includes(`'${s.text}'`))
        problems.push(`\`${s.text}\`: no such lint rule in use`);
      continue;
    }
    const isPath = PATHLIKE.test(s.text) && (s.text.includes('/') || FILE_EXT.test(s.text));
    if (!isPath) continue;
    const full = resolvePath(s.text);
    if (!full) {
      problems.push(`\`${s.text}\`: no such file or folder`);
      continue;
    }
    // The symbols right after it: `path` `a`, `b`
    let end = s.end;
    for (let j = i + 1; j < spans.length; j++) {
      const next = spans[j]!;
      if (!/^\s*,?\s*$/.test(prose.slice(end, next.start)) || !IDENT.test(next.text)) break;
      const isDir = fs.statSync(full).isDirectory();
      const files = isDir ? filesUnder(full).filter((f) => /\.tsx?$/.test(f)) : [full];
      const problem = symbolProblem(s.text, files, next.text);
      if (problem) problems.push(problem);
      end = next.end;
      i = j;
    }
  }
  // Each walk: at most MAX_WALK_FILES numbered steps, each opening with the file (or folder) it touches.
  for (const section of markdown.split(/^(?=## )/m).filter((x) => x.startsWith('## Walk'))) {
    const title = section.slice(3, section.indexOf('\n'));
    const steps = [...section.matchAll(/^\d+\. (.*)$/gm)].map((m) => m[1]!);
    if (steps.length === 0 || steps.length > MAX_WALK_FILES) problems.push(`${title}: ${steps.length} steps (1 to ${MAX_WALK_FILES})`);
    for (const step of steps)
      if (!/^`src\//.test(step)) problems.push(`${title}: a step does not open with its file: ${step.slice(0, 60)}`);
  }
  return problems;
}

test('docs/architecture.md names only paths that exist and symbols declared where it says, and its walks touch at most 6 server files', () => {
  const markdown = fs.readFileSync(DOC, 'utf8');
  assert.deepEqual(problemsIn(markdown), []);
  // It does check something: the three walks, and many references.
  assert.equal(markdown.split(/^## Walk/m).length - 1, 3, 'three walks');
  assert.ok((markdown.match(/`src\/[^`]+` `[A-Za-z_$]/g) ?? []).length >= 30, 'at least 30 path + symbol references');
});

test('the doc check finds a missing file, a symbol not declared where named, a folder without the symbol and a walk that is too long', () => {
  const walk = Array.from({ length: 7 }, (_, i) => `${i + 1}. \`src/main/hub/core/hub.ts\` \`Hub\``).join('\n');
  const bad = [
    'See `src/main/hub/core/nowhere.ts` and `src/main/hub/core/hub.ts` `Hub.emit`, `noSuchThing`.',
    'The folder `src/main/hub/phone` `Notifier`, `notInPhone`; the member `src/main/hub/core/bus.ts` `Bus.nope`.',
    'Kept by `perch/area-direction` and `perch/no-such-rule`.',
    '```\nsrc/main/gone/   a folder that is not there\n```',
    `## Walk (z): too long\n\n${walk}\n`,
  ].join('\n\n');
  const problems = problemsIn(bad);
  assert.deepEqual(problems, [
    'src/main/gone/ (in a code block): no such file or folder',
    '`src/main/hub/core/nowhere.ts`: no such file or folder',
    '`src/main/hub/core/hub.ts` `noSuchThing`: not declared there',
    '`src/main/hub/phone` `notInPhone`: not declared there',
    '`src/main/hub/core/bus.ts` `Bus.nope`: not declared there',
    '`perch/no-such-rule`: no such lint rule in use',
    'Walk (z): too long: 7 steps (1 to 6)',
  ]);
});

test('the Layout (docs/architecture.md) names only folders and files that exist', () => {
  const doc = fs.readFileSync(DOC, 'utf8');
  const layout = doc.slice(doc.indexOf('## Layout\n'), doc.indexOf('\n## ', doc.indexOf('## Layout\n') + 1));
  assert.ok(layout.includes('src/main/hub/'), 'the Layout section is found');
  assert.deepEqual(problemsIn(layout), []);
  // Its top-level folders too (the code block's first column).
  const block = /```\n([\s\S]*?)```/.exec(layout)![1]!;
  const missing = block
    .split('\n')
    .map((l) => l.split(/\s+/)[0]!)
    .filter((p) => p && !fs.existsSync(path.join(ROOT, p)));
  assert.deepEqual(missing, []);
});

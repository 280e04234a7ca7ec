// The README and docs/ cannot point at nothing: every relative markdown link (and its #anchor, against the target's
// headings as GitHub makes them) and every repository path named in backticks (`src/main/app.ts`, `docs/guide/`)
// resolves to a file or folder of this repository; the README stays a front door of at most 250 lines and links
// every guide in docs/guide/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const README_MAX_LINES = 250;

/** README.md and every .md under docs/, as repository-relative paths. */
function docFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out.sort();
}

/** Folders the build and the tests write (the .gitignore's folder lines): a path under one is not checked out. */
const GENERATED = fs
  .readFileSync(path.join(ROOT, '.gitignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l.endsWith('/') && !l.includes('*'));
const TOP_LEVEL = new Set(fs.readdirSync(ROOT).filter((n) => n !== 'node_modules'));
const FILE_EXT = /\.(ts|tsx|mts|mjs|cjs|js|json|md|txt|yml|yaml|sh|png|html|css)$/;

/** The heading anchors of a markdown file, as GitHub makes them (lower case, punctuation dropped, blanks as '-', repeats -1, -2 …). */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of stripFences(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The markdown without its fenced code blocks (commands and configs there are examples, not links). */
function stripFences(markdown: string): string {
  return markdown.replace(/^ *```[\s\S]*?^ *```/gm, '');
}

/** Whether an inline code span names a path of this repository (rather than a command, a URL or a user's file). */
function repoPathIn(code: string): string | undefined {
  if (!code.includes('/') || /[\s<>${}*:~?=@'"`,;|&()[\]]/.test(code) || code.startsWith('.') || code.startsWith('/')) return undefined;
  if (code.startsWith('path/to/') || /^[A-Z_]+\//.test(code)) return undefined; // placeholders: path/to/project, DIR/…
  const first = code.split('/')[0]!;
  if (TOP_LEVEL.has(first) || FILE_EXT.test(code)) return code;
  return undefined;
}

function exists(rel: string): boolean {
  if (GENERATED.some((g) => rel === g.slice(0, -1) || rel.startsWith(g))) return true;
  return fs.existsSync(path.join(ROOT, rel));
}

/** What does not resolve in one markdown file (`file`: its repository-relative path). */
export function linkProblems(file: string, markdown: string, readFile: (rel: string) => string | undefined): string[] {
  const problems: string[] = [];
  const text = stripFences(markdown);
  const dir = path.posix.dirname(file);
  const withoutCode = text.replace(/`[^`\n]*`/g, '');
  for (const m of withoutCode.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
    const target = m[1]!;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
    const hash = target.indexOf('#');
    const rawPath = hash === -1 ? target : target.slice(0, hash);
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
    const rel = rawPath === '' ? file : path.posix.normalize(path.posix.join(dir, decodeURIComponent(rawPath)));
    if (rel.startsWith('..')) {
      problems.push(`${file}: link ${target}: outside the repository`);
      continue;
    }
    if (!exists(rel)) {
      problems.push(`${file}: link ${target}: no such file ${rel}`);
      continue;
    }
    if (anchor !== undefined && rel.endsWith('.md')) {
      const body = rawPath === '' ? markdown : readFile(rel);
      if (body !== undefined && !anchorsOf(body).has(anchor)) problems.push(`${file}: link ${target}: no heading #${anchor} in ${rel}`);
    }
  }
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const p = repoPathIn(m[1]!);
    if (p !== undefined && !exists(p.replace(/\/$/, ''))) problems.push(`${file}: \`${p}\`: no such file or folder`);
  }
  return problems;
}

const read = (rel: string): string | undefined => {
  try {
    return fs.readFileSync(path.join(ROOT, rel), 'utf8');
  } catch {
    return undefined;
  }
};

test('every relative link, anchor and repository path in README.md and docs/**/*.md resolves', () => {
  const files = docFiles();
  assert.ok(files.length >= 15, `README and the docs are found (${files.length})`);
  const problems = files.flatMap((f) => linkProblems(f, read(f)!, read));
  assert.deepEqual(problems, []);
});

test('the README is a front door: at most 250 lines, and it links every guide in docs/guide/', () => {
  const readme = read('README.md')!;
  const lines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
  assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines (at most ${README_MAX_LINES})`);
  const guides = fs.readdirSync(path.join(ROOT, 'docs', 'guide')).filter((n) => n.endsWith('.md'));
  assert.ok(guides.length >= 10, 'the guides are found');
  const unlinked = guides.filter((g) => !readme.includes(`](docs/guide/${g}`));
  assert.deepEqual(unlinked, [], 'guides the README does not link');
});

test('the check finds a missing file, a missing anchor, a link out of the repository and a missing code path', () => {
  const bad = [
    'See [the guide](docs/guide/nowhere.md), [wake runs](docs/guide/wake-runs.md#no-such-heading) and [up](../x.md).',
    'The store is `src/main/store/nowhere.ts`; `src/main/app.ts` is fine, and so are `~/.claude.json`, `perch serve` and [a site](https://example.com).',
    '```sh\ncat src/main/not-checked-in-a-code-block.ts\n```',
    '[here](#a-heading) and [there](#missing)',
    '## A heading',
  ].join('\n\n');
  assert.deepEqual(linkProblems('README.md', bad, read), [
    'README.md: link docs/guide/nowhere.md: no such file docs/guide/nowhere.md',
    'README.md: link docs/guide/wake-runs.md#no-such-heading: no heading #no-such-heading in docs/guide/wake-runs.md',
    'README.md: link ../x.md: outside the repository',
    'README.md: link #missing: no heading #missing in README.md',
    'README.md: `src/main/store/nowhere.ts`: no such file or folder',
  ]);
});

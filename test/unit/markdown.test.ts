// The owner UI's Markdown renderer never takes the UI down: agent text that would overflow marked's stack
// (thousands of nested quotes or list markers) is cut at a budget before parsing, the rest shown as plain
// text; a block with thousands of emphasis delimiters (seconds of quadratic matching) is shown as plain
// text; and any error shows the whole text as plain text. This tests the pure half (src/renderer/markdown-core.ts: the budgets and marked's output); the DOM
// half (DOMPurify) runs in the browser, in e2e/hostile-text.spec.ts.
//
// The fuzz is seeded: a fixed seed, then one random seed printed in the output (PERCH_MD_FUZZ_SEED=<n>
// replays it). Work is asserted on sizes (what reaches marked, the tokens and HTML it makes), not on time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Token } from 'marked';
import {
  boundMarkdown,
  countDelimiters as delims,
  CUT_NOTE,
  lexBounded,
  lineDepth,
  markdownToHtml,
  markedHtml,
  markedUnbounded,
  MD_BUDGET,
} from '../../src/renderer/markdown-core';
import { LIMITS } from '../../src/shared/limits';
import { Rng } from '../support/rng';

const FIXED_SEED = 20261201;
const RANDOM_SEED = process.env.PERCH_MD_FUZZ_SEED ? Number(process.env.PERCH_MD_FUZZ_SEED) >>> 0 : crypto.randomInt(2 ** 31);
const DOCS_PER_SEED = 300;

const identity = (html: string) => html;

// ---- generators: deep nesting of every kind, long runs, random mixes ------------------------------

const NESTERS: Array<(r: Rng, n: number) => string> = [
  (_r, n) => '> '.repeat(n) + 'x',
  (_r, n) => '>'.repeat(n) + 'x',
  (_r, n) => '- '.repeat(n) + 'x',
  (_r, n) => '* '.repeat(n) + 'x',
  (_r, n) => '1. '.repeat(n) + 'x',
  (_r, n) => '> - 1) '.repeat(n) + 'x',
  (_r, n) => Array.from({ length: n }, (_, i) => `${' '.repeat(i * 2)}- item ${i}`).join('\n'),
  (_r, n) => Array.from({ length: n }, (_, i) => `${'> '.repeat(i)}line ${i}`).join('\n'),
  (_r, n) => '*'.repeat(n) + 'a' + '*'.repeat(n),
  (_r, n) => '_'.repeat(n) + 'a' + '_'.repeat(n),
  (_r, n) => '**a '.repeat(n) + '**'.repeat(n),
  (_r, n) => '~~'.repeat(n) + 'a' + '~~'.repeat(n),
  (_r, n) => '['.repeat(n) + 'a' + '](http://x)'.repeat(n),
  (_r, n) => '[a]('.repeat(n) + 'x' + ')'.repeat(n),
  (_r, n) => '!['.repeat(n) + 'a' + '](x)'.repeat(n),
  (_r, n) => '`'.repeat(n) + 'a' + '`'.repeat(n - 1),
  (_r, n) => '<div>'.repeat(n) + 'a' + '</div>'.repeat(n),
  (_r, n) => '<span>'.repeat(n) + 'a',
  (_r, n) => '```\n' + '_a'.repeat(n) + '\n',
  (_r, n) => '```a`b\n' + '_a'.repeat(n) + '\n```\n',
  (_r, n) => '~~~\n' + '    - '.repeat(n) + '\n~~~\n' + '> '.repeat(n),
  (_r, n) => '| a '.repeat(Math.min(n, 2000)) + '|\n' + '|---'.repeat(Math.min(n, 2000)) + '|\n' + '| *b* '.repeat(Math.min(n, 2000)) + '|',
  (_r, n) => '#'.repeat(n) + ' title',
  (_r, n) => '\\'.repeat(n) + '*a*',
  (_r, n) => '&amp;'.repeat(n),
  (_r, n) => 'http://a.b/' + '_('.repeat(n),
];

const RUNS = [
  '_a',
  '*a',
  '**a',
  '~a',
  '[a',
  '[](',
  '`a',
  '<a',
  'a_ _',
  '*_',
  '![',
  '> ',
  '- ',
  '\n',
  '\n\n',
  ' ',
  'a',
  '1. ',
  '|',
  '\\',
  '&',
  'x'.repeat(50),
];

const FRAGMENTS = [
  '# Heading',
  '**bold**',
  '*em*',
  '_em_',
  '~~del~~',
  '`code`',
  '[link](https://example.com)',
  '![img](https://x/y.png)',
  '<b>raw</b>',
  '> quote',
  '- item',
  '1. one',
  '- [ ] task',
  '```js\nconst a_b = 1;\n```',
  '    indented code',
  '---',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  'plain words',
  'snake_case_name',
  '<script>alert(1)</script>',
  '\\*',
  'x'.repeat(300),
];

function generate(r: Rng): string {
  const max = LIMITS.maxTextChars;
  let out = '';
  switch (r.int(4)) {
    case 0: {
      const f = r.pick(NESTERS);
      out = f(r, r.size(5000));
      break;
    }
    case 1: {
      const run = r.pick(RUNS);
      out = run.repeat(Math.ceil(r.size(max) / run.length));
      break;
    }
    case 2: {
      const parts = r.size(200);
      for (let i = 0; i < parts && out.length < max; i++) out += r.pick(FRAGMENTS) + r.pick(['', ' ', '\n', '\n\n', '  \n']);
      break;
    }
    default: {
      // A random mix: nesters, runs and fragments glued together.
      const parts = 1 + r.int(8);
      for (let i = 0; i < parts; i++) {
        const k = r.int(3);
        out += k === 0 ? r.pick(NESTERS)(r, r.size(1500)) : k === 1 ? r.pick(RUNS).repeat(r.size(3000)) : r.pick(FRAGMENTS);
        out += r.pick(['', '\n', '\n\n', ' ']);
      }
    }
  }
  return out.slice(0, max);
}

// ---- measures independent of the budget code: marked's own tokens -------------------------------

/** Holders of inline text whose inline tokens marked matched (not left as one plain text token). */
const INLINE_HOLDERS = new Set(['paragraph', 'heading', 'text']);

function tokenStats(tokens: Token[], depth = 1): { count: number; depth: number; matched: number[] } {
  let count = 0;
  let max = depth;
  const matched: number[] = [];
  for (const t of tokens) {
    count++;
    const children: Token[] = [];
    if ('tokens' in t && Array.isArray(t.tokens)) {
      children.push(...t.tokens);
      const leftPlain = t.tokens.length === 1 && t.tokens[0]!.type === 'text' && !('tokens' in t.tokens[0]!) && t.tokens[0]!.raw === t.text;
      if (INLINE_HOLDERS.has(t.type) && !leftPlain) matched.push(delims(String(t.text ?? '')));
    }
    if ('items' in t && Array.isArray(t.items)) children.push(...(t.items as Token[]));
    if (t.type === 'table') for (const cell of [...t.header, ...t.rows.flat()]) children.push(...cell.tokens);
    if (children.length) {
      const s = tokenStats(children, depth + 1);
      count += s.count;
      max = Math.max(max, s.depth);
      matched.push(...s.matched);
    }
  }
  return { count, depth: max, matched };
}

/** Parses within the budget without any safety net, and checks the work marked did by sizes. */
function checkWithinBudget(text: string, label: string): void {
  const b = boundMarkdown(text);
  assert.equal(b.markdown + b.plain, text, `${label}: the two parts are the whole text`);
  assert.ok(b.markdown.length <= MD_BUDGET.maxChars, `${label}: at most ${MD_BUDGET.maxChars} characters reach marked`);
  assert.ok(b.markdown === '' || b.plain === '' || b.markdown.endsWith('\n'), `${label}: the cut is at a line end`);
  assert.equal(!!b.cut, b.plain !== '', `${label}: a cut names its budget`);
  // marked itself, with no try/catch around it: it must not throw on what the budget lets through.
  const lexed = lexBounded(b.markdown);
  const html = markedHtml(b.markdown);
  const s = tokenStats(lexed.tokens);
  assert.ok(lexed.delimiters <= MD_BUDGET.maxDelimiters, `${label}: ${lexed.delimiters} delimiters matched in all`);
  for (const d of s.matched) assert.ok(d <= MD_BUDGET.maxBlockDelimiters, `${label}: a block with ${d} delimiters was matched`);
  // Containers nest at most maxDepth per line (a few tokens each); emphasis nests at most one level per 2 delimiters of a block.
  assert.ok(s.depth <= 4 * MD_BUDGET.maxDepth + MD_BUDGET.maxBlockDelimiters / 2 + 8, `${label}: token tree ${s.depth} deep`);
  assert.ok(s.count <= 4 * b.markdown.length + 16, `${label}: ${s.count} tokens for ${b.markdown.length} characters`);
  assert.ok(html.length <= 40 * b.markdown.length + 64, `${label}: ${html.length} characters of HTML for ${b.markdown.length}`);
  // And the whole renderer, as the UI calls it.
  const whole = markdownToHtml(text, identity);
  assert.ok(whole.length <= 40 * text.length + 256, `${label}: ${whole.length} characters of HTML in all for ${text.length}`);
}

// ---- the tests ------------------------------------------------------------------------------------

test('the quote bomb (3000 nested quotes) that overflows marked renders as plain text', () => {
  const bomb = '> '.repeat(3000) + 'x';
  assert.throws(() => markedUnbounded(bomb), RangeError, 'marked alone overflows its stack on this input');
  const b = boundMarkdown(bomb);
  assert.equal(b.cut, 'depth');
  assert.equal(b.markdown, '');
  const html = markdownToHtml(bomb, identity);
  assert.ok(html.startsWith('<div class="md-plain">&gt; &gt; '), html.slice(0, 80));
  assert.ok(!html.includes('<blockquote>'));
});

test('nested list markers and nested emphasis that overflow marked render as plain text', () => {
  for (const bomb of ['- '.repeat(3000) + 'x', '1. '.repeat(3000) + 'x', '*'.repeat(5000) + 'a' + '*'.repeat(5000)]) {
    assert.throws(() => markedUnbounded(bomb), RangeError);
    assert.doesNotThrow(() => markdownToHtml(bomb, identity));
    const b = boundMarkdown(bomb);
    assert.ok(b.cut === 'depth' || lexBounded(b.markdown).plainBlocks === 1, bomb.slice(0, 10));
  }
});

test('32 KB of "_a" (quadratic emphasis matching) is shown as plain text, not matched', () => {
  const text = '_a'.repeat(16384);
  const b = boundMarkdown(text);
  assert.equal(b.cut, 'length', 'one line over the length budget');
  const html = markdownToHtml(text, identity);
  assert.equal(html, `<div class="md-plain">${text}</div>`);
  // Under the length budget, the paragraph's delimiters are over the block budget: its text is left plain.
  const short = '_a'.repeat(8000);
  const lexed = lexBounded(short);
  assert.equal(lexed.plainBlocks, 1);
  assert.equal(lexed.delimiters, 0);
  assert.equal(markedHtml(short), `<p>${short}</p>\n`);
});

test('a block within the delimiter budget is Markdown; one over it, and blocks past the total budget, are plain text', () => {
  const ok = '*a* '.repeat(MD_BUDGET.maxBlockDelimiters / 2);
  assert.match(markedHtml(ok), /^<p><em>a<\/em> <em>a<\/em>/);
  const over = '*a* '.repeat(MD_BUDGET.maxBlockDelimiters / 2 + 1);
  assert.ok(markedHtml(`# Title\n\n${over}\n\n**after**`).startsWith(`<h1>Title</h1>\n<p>${over}</p>\n<p><strong>after</strong></p>`));
  const blocks = Array.from({ length: 30 }, () => ok.trim()).join('\n\n');
  const lexed = lexBounded(blocks);
  assert.equal(lexed.delimiters, Math.floor(MD_BUDGET.maxDelimiters / MD_BUDGET.maxBlockDelimiters) * MD_BUDGET.maxBlockDelimiters);
  assert.equal(lexed.plainBlocks, 30 - MD_BUDGET.maxDelimiters / MD_BUDGET.maxBlockDelimiters);
});

test('text nested deeper than the budget is Markdown up to that line, then plain text after a note', () => {
  const text = '**intro**\n\n' + '> '.repeat(MD_BUDGET.maxDepth + 1) + 'deep\nlater *line*';
  const html = markdownToHtml(text, identity);
  assert.ok(html.startsWith('<p><strong>intro</strong></p>\n' + CUT_NOTE + '<div class="md-plain">&gt; &gt; '), html.slice(0, 200));
  assert.ok(html.endsWith('deep\nlater *line*</div>'));
});

test('a long line without spaces (40,000 characters) is plain text, not parsed', () => {
  const text = 'x'.repeat(40_000);
  assert.equal(boundMarkdown(text).cut, 'length');
  assert.equal(markdownToHtml(text, identity), `<div class="md-plain">${text}</div>`);
});

test('ordinary Markdown is rendered whole: fenced code with deep indentation and many underscores is not cut', () => {
  const code =
    '```py\n' +
    Array.from({ length: 200 }, (_, i) => `${' '.repeat((i % 40) * 2)}some_long_name_${i} = other_name_${i}`).join('\n') +
    '\n```\n';
  const text = `# Report\n\n**Done**: 3 of 4\n\n> a quote\n\n- one\n  - two\n    - three\n\n${code}\nAfter *the* code.`;
  const b = boundMarkdown(text);
  assert.equal(b.cut, undefined);
  assert.equal(b.plain, '');
  assert.equal(lexBounded(text).plainBlocks, 0);
  const html = markdownToHtml(text, identity);
  assert.match(html, /<h1>Report<\/h1>/);
  assert.match(html, /<strong>Done<\/strong>/);
  assert.match(html, /<pre><code class="language-py">/);
  assert.match(html, /After <em>the<\/em> code\./);
  assert.ok(!html.includes('md-plain'));
});

test('raw HTML in agent text is escaped by the renderer (before DOMPurify)', () => {
  const html = markdownToHtml('<img src=x onerror=alert(1)> and <script>alert(2)</script>', identity);
  assert.ok(!/<img|<script/i.test(html), html);
});

test('any error while rendering shows the whole text as plain text', () => {
  const html = markdownToHtml('**bold** <b>x</b>', () => {
    throw new Error('sanitizer failed');
  });
  assert.equal(html, '<div class="md-plain">**bold** &lt;b&gt;x&lt;/b&gt;</div>');
});

test("line depth counts quotes and list markers, and a list line's indentation", () => {
  assert.equal(lineDepth('plain'), 0);
  assert.equal(lineDepth('> > x'), 2);
  assert.equal(lineDepth('>>>x'), 3);
  assert.equal(lineDepth('- * + 1. 2) x'), 7); // 5 markers, and the 4 spaces between them / 2
  assert.equal(lineDepth('        - x'), 5);
  assert.equal(lineDepth('        code'), 0);
  assert.equal(lineDepth('-x *y 1.z'), 0);
  assert.equal(lineDepth('> '.repeat(MD_BUDGET.maxDepth) + 'x'), MD_BUDGET.maxDepth);
  assert.equal(boundMarkdown('> '.repeat(MD_BUDGET.maxDepth) + 'x').cut, undefined);
  assert.equal(boundMarkdown('> '.repeat(MD_BUDGET.maxDepth + 1) + 'x').cut, 'depth');
});

for (const seed of [FIXED_SEED, RANDOM_SEED]) {
  test(`fuzz: generated hostile Markdown never throws and stays within the work budget (seed ${seed}; PERCH_MD_FUZZ_SEED=${seed} replays)`, (t) => {
    const r = new Rng(seed);
    let cuts = 0;
    let parsed = 0;
    for (let i = 0; i < DOCS_PER_SEED; i++) {
      const text = generate(r);
      checkWithinBudget(text, `seed ${seed} doc ${i} (${JSON.stringify(text.slice(0, 40))}…, ${text.length} chars)`);
      const b = boundMarkdown(text);
      if (b.cut) cuts++;
      parsed += b.markdown.length;
    }
    t.diagnostic(`${DOCS_PER_SEED} documents, ${cuts} cut at a budget, ${parsed} characters parsed as Markdown`);
  });
}

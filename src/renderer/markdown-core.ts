// The pure half of the Markdown renderer (no DOM, importable in Node): the budgets that keep one agent's
// text from taking the UI down, and marked's output. markdown.ts adds DOMPurify (which needs a DOM) and a cache.
//
// marked is recursive and some inputs are pathological: 3000 nested quotes or list markers on one line
// overflow its stack, and thousands of emphasis delimiters in one paragraph cost seconds (their matching is
// quadratic). So, before parsing:
// - the text is cut at the first line nested deeper than a budget, or at a length budget: the part before
//   is Markdown, the rest is shown as plain text after a note;
// - then marked splits the Markdown into blocks, and a block's inline text (a paragraph, heading, table
//   cell) with more emphasis delimiters than a budget is shown as its plain text (as is every block after
//   a total budget), never matched.
// Any error while rendering shows the whole text as plain text.
import { Lexer, Marked, Parser, type Token, type Tokens } from 'marked';

export const MD_BUDGET = {
  /** Characters rendered as Markdown; the rest of a longer text is plain. */
  maxChars: 20_000,
  /** Nesting of containers on one line: `>` quotes and list markers (plus a list line's indentation / 2). */
  maxDepth: 16,
  /** Emphasis delimiters (`*`, `_`, `~`) in one block's inline text: marked matches them in quadratic time. */
  maxBlockDelimiters: 500,
  /** Emphasis delimiters in all the inline text matched; later blocks are plain text. */
  maxDelimiters: 4000,
} as const;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  async: false,
  renderer: {
    // Raw HTML in a message is shown as the text it is, never parsed.
    html({ text }: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(text);
    },
    // Images in agent text would load remote content; show them as links instead.
    image({ href, text }: Tokens.Image) {
      return `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`;
    },
  },
});

/** A space, a tab or the end of the line at j (after a list marker). */
function spaceAt(line: string, j: number): boolean {
  return j >= line.length || line[j] === ' ' || line[j] === '\t';
}

/** How deeply one line nests containers: each `>` and list marker in its prefix, plus (on a list line) the whitespace of that prefix / 2. */
export function lineDepth(line: string): number {
  let i = 0;
  let depth = 0;
  let indent = 0;
  let listed = false;
  const n = line.length;
  for (;;) {
    while (i < n && (line[i] === ' ' || line[i] === '\t')) {
      indent += line[i] === '\t' ? 4 : 1;
      i++;
    }
    const c = line[i];
    if (c === '>') {
      depth++;
      i++;
      continue;
    }
    if ((c === '-' || c === '+' || c === '*') && spaceAt(line, i + 1)) {
      depth++;
      listed = true;
      i++;
      continue;
    }
    if (c !== undefined && c >= '0' && c <= '9') {
      let j = i;
      while (j < n && j - i < 10 && line[j]! >= '0' && line[j]! <= '9') j++;
      if ((line[j] === '.' || line[j] === ')') && spaceAt(line, j + 1)) {
        depth++;
        listed = true;
        i = j + 1;
        continue;
      }
    }
    break;
  }
  return depth + (listed ? Math.floor(indent / 2) : 0);
}

export interface Bounded {
  /** The leading part rendered as Markdown (whole lines). */
  markdown: string;
  /** The rest, shown as plain text ('' when the whole text is Markdown). */
  plain: string;
  /** Which budget cut the text, if one did. */
  cut?: 'length' | 'depth';
}

/** Splits text into the part that is safe to parse as Markdown (length and nesting within MD_BUDGET) and the rest. Linear. */
export function boundMarkdown(text: string, budget: typeof MD_BUDGET = MD_BUDGET): Bounded {
  let start = 0;
  let cut: Bounded['cut'];
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl === -1 ? text.length : nl + 1;
    if (end > budget.maxChars) cut = 'length';
    else if (lineDepth(text.slice(start, nl === -1 ? text.length : nl)) > budget.maxDepth) cut = 'depth';
    if (cut) return { markdown: text.slice(0, start), plain: text.slice(start), cut };
    start = end;
  }
  return { markdown: text, plain: '' };
}

export function countDelimiters(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 42 /* * */ || c === 95 /* _ */ || c === 126 /* ~ */) n++;
  }
  return n;
}

export interface Lexed {
  tokens: Token[];
  /** Blocks whose inline text was left plain (over a delimiter budget). */
  plainBlocks: number;
  /** Emphasis delimiters in the inline text that was matched. */
  delimiters: number;
}

/**
 * marked's lexer in two steps, as marked.lex runs it (blocks, then each block's inline text), with the
 * delimiter budgets between: a block's inline text over budget becomes one plain text token.
 */
export function lexBounded(markdown: string, budget: typeof MD_BUDGET = MD_BUDGET): Lexed {
  const lexer = new Lexer(marked.defaults);
  const tokens = lexer.blockTokens(markdown.replace(/\r\n|\r/g, '\n'), lexer.tokens);
  let plainBlocks = 0;
  let delimiters = 0;
  for (const item of lexer.inlineQueue) {
    const d = countDelimiters(item.src);
    if (d > budget.maxBlockDelimiters || delimiters + d > budget.maxDelimiters) {
      item.tokens.push({ type: 'text', raw: item.src, text: item.src, escaped: false });
      plainBlocks++;
      continue;
    }
    delimiters += d;
    lexer.state.inRawBlock = false;
    lexer.inlineTokens(item.src, item.tokens);
  }
  lexer.inlineQueue = [];
  return { tokens, plainBlocks, delimiters };
}

/** marked's HTML for text already within the length and depth budget (raw HTML is escaped, but run it through DOMPurify). */
export function markedHtml(markdown: string): string {
  return new Parser(marked.defaults).parse(lexBounded(markdown).tokens);
}

/** marked as it comes, with no budget (the tests show what the budgets prevent). */
export function markedUnbounded(markdown: string): string {
  return marked.parse(markdown) as string;
}

/** The whole text as plain, escaped text (pre-wrapped by the stylesheet). */
export function plainHtml(text: string): string {
  return `<div class="md-plain">${escapeHtml(text)}</div>`;
}

export const CUT_NOTE = '<p class="md-cut-note">The rest is shown as plain text: it is too long or too deeply nested to format.</p>';

/**
 * Text → safe HTML: the part within budget as Markdown passed through sanitize, the rest escaped as plain
 * text. Never throws: on any error (of marked or of sanitize) the whole text is shown as plain text.
 */
export function markdownToHtml(text: string, sanitize: (html: string) => string): string {
  try {
    const b = boundMarkdown(text);
    const md = b.markdown ? sanitize(markedHtml(b.markdown)) : '';
    return b.plain ? `${md}${b.markdown ? CUT_NOTE : ''}${plainHtml(b.plain)}` : md;
  } catch {
    return plainHtml(text);
  }
}

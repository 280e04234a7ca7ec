// Agent text is data: Markdown is rendered with raw HTML shown as text, and the result is sanitized again
// by DOMPurify before it reaches the DOM. The budgets and the plain-text fallback are in markdown-core.ts.
import DOMPurify from 'dompurify';
import { markdownToHtml } from './markdown-core';

const ALLOWED_TAGS = [
  'a',
  'b',
  'blockquote',
  'br',
  'code',
  'del',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'input',
  'li',
  'ol',
  'p',
  'pre',
  's',
  'strong',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
  'span',
];
const ALLOWED_ATTR = ['href', 'title', 'type', 'checked', 'disabled', 'align', 'start'];

let hooked = false;
function hook(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (!/^(https?:|mailto:)/i.test(href)) node.removeAttribute('href');
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer nofollow');
    }
    if (node.nodeName === 'INPUT') {
      // GFM task-list checkboxes only.
      if (node.getAttribute('type') !== 'checkbox') node.remove();
      else node.setAttribute('disabled', '');
    }
  });
}

function sanitize(html: string): string {
  hook();
  return DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false, ADD_ATTR: ['target', 'rel'] });
}

const cache = new Map<string, string>();
const CACHE_MAX = 2000;

/** Markdown → sanitized HTML, safe for dangerouslySetInnerHTML. Never throws (plain text on any error). */
export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const clean = markdownToHtml(text, sanitize);
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(text, clean);
  return clean;
}

// Agent text is data (DESIGN invariant 6): Markdown is rendered with raw HTML shown as text, and the
// result is sanitized again by DOMPurify before it reaches the DOM.
import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';

function escapeHtml(s: string): string {
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

const ALLOWED_TAGS = [
  'a', 'b', 'blockquote', 'br', 'code', 'del', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'input', 'li', 'ol', 'p',
  'pre', 's', 'strong', 'table', 'tbody', 'td', 'th', 'thead', 'tr', 'ul', 'span',
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

const cache = new Map<string, string>();
const CACHE_MAX = 2000;

/** Markdown → sanitized HTML, safe for dangerouslySetInnerHTML. */
export function renderMarkdown(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  hook();
  const raw = marked.parse(text) as string;
  const clean = DOMPurify.sanitize(raw, { ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false, ADD_ATTR: ['target', 'rel'] });
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(text, clean);
  return clean;
}

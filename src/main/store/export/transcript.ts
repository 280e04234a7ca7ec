// The human-readable side of an export: transcripts/<title>-<conversation id>.md, one per conversation, from its
// event log in order: who said what and when, edits and recalls, decisions on requests, handoffs and task changes
// inline as words (their fields as "name: value", never raw JSON), files and images linked to their bytes in the
// export (../files/<id>).

export interface TranscriptEvent {
  seq: number;
  type: string;
  actor_id: string | null;
  ts: number;
  data: string | null;
  msg_id: string | null;
  m_text: string | null;
  m_kind: string | null;
  m_edited_at: number | null;
  m_recalled_at: number | null;
  m_reply_to: string | null;
}

export interface TranscriptFile {
  id: string;
  name: string;
  is_image: number;
}

function when(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, 'Z');
}

/** Markdown-safe one line of someone's text in a heading-free block (quoted, so it cannot make headings). */
function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

/** An event's fields as words: "state: done; assignee: kit" (ids of people as their names; nested values one level deep). */
function fields(d: Record<string, unknown>, nameOf: (id: string | null) => string, depth = 0): string {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(d)) {
    let s: string | undefined;
    if (typeof v === 'string' && v) s = nameOf(v).replace(/\s+/g, ' ');
    else if (typeof v === 'number' || typeof v === 'boolean') s = String(v);
    else if (Array.isArray(v) && v.length && v.every((x) => typeof x === 'string' || typeof x === 'number'))
      s = v.map((x) => (typeof x === 'string' ? nameOf(x) : String(x))).join(', ');
    else if (v && typeof v === 'object' && !Array.isArray(v) && depth === 0)
      s = fields(v as Record<string, unknown>, nameOf, 1) ? `(${fields(v as Record<string, unknown>, nameOf, 1)})` : undefined;
    if (s === undefined) continue;
    parts.push(`${k.replace(/_/g, ' ')}: ${s.length > 200 ? `${s.slice(0, 200)}…` : s}`);
  }
  return parts.join('; ');
}

/** transcripts/<name>.md: the conversation's title (or kind) as lowercase words joined by -, then its id. */
export function transcriptName(conv: { id: string; kind: string; title: string }): string {
  // At most 80 characters in all, as an export entry name allows (kinds.ts SAFE_ID).
  const slug = (conv.title || conv.kind)
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, Math.min(40, 79 - conv.id.length))
    .replace(/^-+|-+$/g, '');
  return slug ? `${slug}-${conv.id}` : conv.id;
}

function parsed(data: string | null): Record<string, unknown> {
  try {
    const v = data ? JSON.parse(data) : {};
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

export function transcriptHeader(conv: { id: string; kind: string; title: string; created_at: number }, members: string[]): string {
  return (
    `# ${conv.title ? conv.title.replace(/\n/g, ' ') : `${conv.kind} conversation`}\n\n` +
    `- id: ${conv.id}\n- kind: ${conv.kind}\n- created: ${when(conv.created_at)}\n- members: ${members.join(', ') || '(none)'}\n\n`
  );
}

/** One event of the conversation as Markdown (a message: its sender, time and text; others one line). */
export function transcriptLine(
  e: TranscriptEvent,
  nameOf: (id: string | null) => string,
  filesOf: (msgId: string) => TranscriptFile[],
): string {
  const who = nameOf(e.actor_id);
  const at = when(e.ts);
  if (e.type === 'message.created' && e.msg_id) {
    const head = `**${who}** · ${at} · #${e.seq}${e.m_reply_to ? ` (reply to ${e.m_reply_to})` : ''}${e.m_edited_at ? ` · edited ${when(e.m_edited_at)}` : ''}`;
    if (e.m_recalled_at) return `${head}\n\n_(recalled ${when(e.m_recalled_at)})_\n\n`;
    const body = e.m_text ? `${quote(e.m_text)}\n` : '';
    const files = filesOf(e.msg_id).map((f) =>
      f.is_image ? `![${f.name.replace(/[[\]]/g, '')}](../files/${f.id})` : `[${f.name.replace(/[[\]]/g, '')}](../files/${f.id})`,
    );
    return `${head}\n\n${body}${files.length ? `\n${files.join('\n')}\n` : ''}\n`;
  }
  const d = parsed(e.data);
  if (e.type.startsWith('request.')) {
    const outcome = d.outcome && typeof d.outcome === 'object' ? fields(d.outcome as Record<string, unknown>, nameOf) : '';
    const rest = outcome || fields(d, nameOf);
    return `_${at} · ${who}: ${e.type}_${rest ? ` — ${rest}` : ''}\n\n`;
  }
  if (e.type.startsWith('handoff.')) {
    const note = typeof d.note === 'string' ? d.note : typeof d.return_note === 'string' ? d.return_note : '';
    const to = typeof d.to_user === 'string' ? ` to ${nameOf(d.to_user)}` : '';
    return `_${at} · ${who}: ${e.type}${to}_${note ? `\n\n${quote(note)}` : ''}\n\n`;
  }
  const rest = fields(d, nameOf);
  return `_${at} · ${who}: ${e.type}_${rest ? ` — ${rest}` : ''}\n\n`;
}

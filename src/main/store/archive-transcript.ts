// The human-readable side of an archive: transcripts/<conversation id>.md, one per conversation, from its event
// log in order: who said what and when, edits and recalls, decisions on requests, handoffs and task changes
// inline, files and images linked to their bytes in the archive (../files/<id>).

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
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** Markdown-safe one line of someone's text in a heading-free block (quoted, so it cannot make headings). */
function quote(text: string): string {
  return text.split('\n').map((l) => `> ${l}`).join('\n');
}

function shortJson(data: string | null): string {
  if (!data) return '';
  const s = data.length > 300 ? `${data.slice(0, 300)}…` : data;
  return ` \`${s.replace(/`/g, "'")}\``;
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
  return `# ${conv.title ? conv.title.replace(/\n/g, ' ') : `${conv.kind} conversation`}\n\n` +
    `- id: ${conv.id}\n- kind: ${conv.kind}\n- created: ${when(conv.created_at)}\n- members: ${members.join(', ') || '(none)'}\n\n`;
}

/** One event of the conversation as Markdown (a message: its sender, time and text; others one line). */
export function transcriptLine(e: TranscriptEvent, nameOf: (id: string | null) => string, filesOf: (msgId: string) => TranscriptFile[]): string {
  const who = nameOf(e.actor_id);
  const at = when(e.ts);
  if (e.type === 'message.created' && e.msg_id) {
    const head = `**${who}** · ${at} · #${e.seq}${e.m_reply_to ? ` (reply to ${e.m_reply_to})` : ''}${e.m_edited_at ? ` · edited ${when(e.m_edited_at)}` : ''}`;
    if (e.m_recalled_at) return `${head}\n\n_(recalled ${when(e.m_recalled_at)})_\n\n`;
    const body = e.m_text ? `${quote(e.m_text)}\n` : '';
    const files = filesOf(e.msg_id).map((f) => (f.is_image ? `![${f.name.replace(/[[\]]/g, '')}](../files/${f.id})` : `[${f.name.replace(/[[\]]/g, '')}](../files/${f.id})`));
    return `${head}\n\n${body}${files.length ? `\n${files.join('\n')}\n` : ''}\n`;
  }
  const d = parsed(e.data);
  if (e.type.startsWith('request.')) {
    const outcome = d.outcome && typeof d.outcome === 'object' ? JSON.stringify(d.outcome) : '';
    return `_${at} · ${who}: ${e.type}${outcome ? ` — ${outcome}` : ''}_${outcome ? '' : shortJson(e.data)}\n\n`;
  }
  if (e.type.startsWith('handoff.')) {
    const note = typeof d.note === 'string' ? d.note : typeof d.return_note === 'string' ? d.return_note : '';
    const to = typeof d.to_user === 'string' ? ` to ${nameOf(d.to_user)}` : '';
    return `_${at} · ${who}: ${e.type}${to}_${note ? `\n\n${quote(note)}` : ''}\n\n`;
  }
  return `_${at} · ${who}: ${e.type}_${shortJson(e.data)}\n\n`;
}

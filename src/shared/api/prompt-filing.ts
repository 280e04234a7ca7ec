// A harness's permission prompt as the hook door files it (POST /hook {event: "permission-request"}, sent by
// `perch hook permission-request` and `perch channel`; src/main/mcp/hook-door.ts): what the client sends
// (PromptFiling), and the request the hub makes of it (title and context, built here, by the hub, so the preview the
// owner reads is always the tool input's own). A prompt too long to show whole is "cut": its context says so
// (context.cut), its preview is the head and the tail of what would run, and no standing rule decides it.
// Pure, and free of heavy imports: the hook's bundle (dist/hook.js) and the channel's use it too.
import { PERMISSION_PROMPT_SOURCE, commandOf, promptTitle } from '../features/permission-prompts';
import { LIMITS } from '../limits';
import { tooDeep } from '../text/json-depth';

type Json = Record<string, unknown>;

/** The event of a prompt's filing on the hook door. */
export const PROMPT_FILING_EVENT = 'permission-request';
/** The preview shows at most this much of the input's text; a longer one is cut to its head and its tail. */
export const MAX_PREVIEW_CHARS = 8_000;
export const CUT_HEAD_CHARS = 5_000;
/** The tail of a cut input: where a chained command (`…; curl … | sh`) ends up. */
export const CUT_TAIL_CHARS = 2_500;
/** The tool input goes whole into the request's context only while the context stays under this (the hub takes 32 KB). */
export const MAX_PROMPT_CONTEXT_BYTES = 30 * 1024;
/** A client sends the tool input whole only up to this size as JSON; beyond it, its head and tail (input_cut). */
export const MAX_SENT_INPUT_BYTES = 40 * 1024;
const MAX_LEAD_CHARS = 2_000;
const MAX_FIELD_CHARS = 4_096;
const FILING_HARNESSES = ['claude-code', 'codex', 'cursor', 'copilot', 'gemini', 'opencode'] as const;

/** What of the input is too long to send or show whole: the start and end of its text, and how long it is. */
export interface InputCut {
  /** The preview's code language (sh: a command). */
  lang: string;
  /** What goes above the code (the command's description, the file edited). */
  lead: string;
  head: string;
  tail: string;
  chars: number;
}

/** A prompt as a client files it on the hook door. */
export interface PromptFiling {
  harness: (typeof FILING_HARNESSES)[number];
  tool_name: string;
  /** The tool's input whole; absent when input_cut is given. */
  tool_input?: unknown;
  input_cut?: InputCut;
  session_id?: string;
  cwd?: string;
  permission_mode?: string;
  /** Cursor's MCP server (its url or command). */
  mcp_server?: string;
  /** `perch channel`'s relay: Claude Code's request id and its description of the call. */
  via?: 'channel';
  channel_request_id?: string;
  description?: string;
  /** How long the request lives, in seconds. */
  ttl_secs?: number;
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A fence longer than any run of backticks in the text. */
function fenced(lang: string, text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

function diffLines(oldText: string, newText: string): string {
  const minus = oldText === '' ? [] : oldText.split('\n').map((l) => `-${l}`);
  const plus = newText === '' ? [] : newText.split('\n').map((l) => `+${l}`);
  return [...minus, ...plus].join('\n');
}

/** What the tool would do, as text: a command (sh), an edit as a diff, new content, else JSON; and what goes above it. */
export function inputText(input: unknown): { lead: string; lang: string; text: string } {
  const o = input && typeof input === 'object' && !Array.isArray(input) ? (input as Json) : undefined;
  const command = commandOf(input);
  if (command !== undefined) return { lead: (o && str(o.description)) ?? '', lang: 'sh', text: command };
  if (o && str(o.file_path) !== undefined && str(o.old_string) !== undefined && str(o.new_string) !== undefined) {
    return {
      lead: o.file_path as string,
      lang: 'diff',
      text: `--- ${o.file_path}\n+++ ${o.file_path}\n${diffLines(o.old_string as string, o.new_string as string)}`,
    };
  }
  if (o && str(o.file_path) !== undefined && Array.isArray(o.edits)) {
    const hunks = (o.edits as unknown[]).map((e) => {
      const x = (e && typeof e === 'object' ? e : {}) as Json;
      return `@@\n${diffLines(str(x.old_string) ?? '', str(x.new_string) ?? '')}`;
    });
    return { lead: o.file_path as string, lang: 'diff', text: `--- ${o.file_path}\n+++ ${o.file_path}\n${hunks.join('\n')}` };
  }
  if (o && str(o.file_path) !== undefined && str(o.content) !== undefined)
    return { lead: `${o.file_path as string} (new content)`, lang: '', text: o.content as string };
  let text: string;
  try {
    text = JSON.stringify(input, null, 2) ?? String(input);
  } catch {
    text = String(input);
  }
  return { lead: '', lang: 'json', text };
}

/** A text cut to its head and tail (what a client sends when the input is too large to send whole). */
export function cutText(t: { lead: string; lang: string; text: string }): InputCut {
  return {
    lang: t.lang,
    lead: clip(t.lead, MAX_LEAD_CHARS),
    head: t.text.slice(0, CUT_HEAD_CHARS),
    tail: t.text.length > CUT_HEAD_CHARS ? t.text.slice(-CUT_TAIL_CHARS) : '',
    chars: t.text.length,
  };
}

/** The input's text (inputText) cut to its head and tail. */
export function cutOf(input: unknown): InputCut {
  return cutText(inputText(input));
}

/** A readable preview of the tool input (markdown): a command as a code block, an edit as a diff, else JSON. */
export function previewOf(input: unknown): string {
  const t = inputText(input);
  const body = fenced(t.lang, t.text);
  return t.lead ? `${t.lead}\n\n${body}` : body;
}

/** The preview of a cut input: says plainly that it is not shown whole, then its head and its tail. */
function cutPreview(c: InputCut): string {
  const hidden = Math.max(0, c.chars - c.head.length - c.tail.length);
  const warn = `**Too long to show whole (${c.chars} characters): only its start and its end are shown${hidden ? `, ${hidden} characters in between are not` : ''}. Read it where it runs before you approve.**`;
  const parts = [warn, ...(c.lead ? [c.lead] : []), fenced(c.lang, c.head)];
  if (c.tail) parts.push(`… ${hidden} characters not shown …`, fenced(c.lang, c.tail));
  return parts.join('\n\n');
}

/** Whether a request's context is a prompt that could not be shown whole (no standing rule decides it, no notice carries buttons). */
export function promptCut(context: unknown): boolean {
  if (!context || typeof context !== 'object' || Array.isArray(context)) return false;
  const c = context as Json;
  return c.source === PERMISSION_PROMPT_SOURCE && (c.cut !== undefined || c.tool_input_omitted !== undefined);
}

/** The request the hub files for a prompt: its title and context (see the top of this file). */
export function promptRequestOf(f: PromptFiling): { title: string; context: Json } {
  const ctx: Json = {
    source: PERMISSION_PROMPT_SOURCE,
    harness: f.harness,
    ...(f.via ? { via: f.via, channel_request_id: f.channel_request_id ?? null } : {}),
    session_id: f.session_id ?? null,
    cwd: f.cwd ?? null,
    ...(f.via ? {} : { permission_mode: f.permission_mode ?? null }),
    tool_name: f.tool_name,
    ...(f.description !== undefined ? { description: f.description } : {}),
    ...(f.mcp_server !== undefined ? { mcp_server: f.mcp_server } : {}),
  };
  const lead = f.description ? `${f.description}\n\n` : '';
  let cut = f.input_cut;
  if (!cut) {
    const t = inputText(f.tool_input);
    if (t.text.length <= MAX_PREVIEW_CHARS) {
      const whole = { ...ctx, preview: `${lead}${previewOf(f.tool_input)}`, tool_input: f.tool_input };
      let size = Infinity;
      try {
        size = new TextEncoder().encode(JSON.stringify(whole)).length;
      } catch {
        // not serializable: cut
      }
      if (size <= MAX_PROMPT_CONTEXT_BYTES) return { title: promptTitle(f.tool_name, f.tool_input), context: whole };
    }
    cut = cutOf(f.tool_input);
  }
  const title = promptTitle(f.tool_name, cut.lang === 'sh' ? { command: cut.head } : {});
  return {
    title,
    context: {
      ...ctx,
      preview: `${lead}${cutPreview(cut)}`,
      cut: { chars: cut.chars, head_chars: cut.head.length, tail_chars: cut.tail.length },
      tool_input_omitted: 'too large to show whole; see the preview',
    },
  };
}

function optString(o: Json, k: string, max: number): string | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new Error(`${k} must be a string`);
  if (v.length > max) throw new Error(`${k} is over ${max} characters`);
  return v;
}

/** The filing in a hook door body, or why it is not one (one line). */
export function parsePromptFiling(o: Json): PromptFiling | string {
  try {
    if (!(FILING_HARNESSES as readonly unknown[]).includes(o.harness)) return `harness must be one of ${FILING_HARNESSES.join(', ')}`;
    const tool = optString(o, 'tool_name', 200);
    if (!tool || !tool.trim()) return 'tool_name: the tool the prompt is for, 1 to 200 characters';
    const f: PromptFiling = { harness: o.harness as PromptFiling['harness'], tool_name: tool };
    for (const k of ['session_id', 'cwd', 'permission_mode', 'mcp_server', 'channel_request_id'] as const) {
      const v = optString(o, k, MAX_FIELD_CHARS);
      if (v !== undefined) f[k] = v;
    }
    const d = optString(o, 'description', MAX_LEAD_CHARS);
    if (d !== undefined) f.description = d;
    if (o.via !== undefined && o.via !== 'channel') return 'via must be channel (or left out)';
    if (o.via === 'channel') f.via = 'channel';
    if (o.ttl_secs !== undefined) {
      if (!Number.isInteger(o.ttl_secs)) return 'ttl_secs must be whole seconds';
      f.ttl_secs = o.ttl_secs as number;
    }
    if ((o.tool_input === undefined) === (o.input_cut === undefined))
      return 'send tool_input, or input_cut when the input is too large (one of them)';
    if (o.input_cut !== undefined) {
      const c = o.input_cut;
      if (!c || typeof c !== 'object' || Array.isArray(c)) return 'input_cut must be an object';
      const x = c as Json;
      const head = optString(x, 'head', CUT_HEAD_CHARS) ?? '';
      const tail = optString(x, 'tail', CUT_TAIL_CHARS) ?? '';
      if (!Number.isInteger(x.chars) || (x.chars as number) < 0) return 'input_cut.chars must be a whole number';
      f.input_cut = {
        lang: optString(x, 'lang', 20) ?? '',
        lead: optString(x, 'lead', MAX_LEAD_CHARS) ?? '',
        head,
        tail,
        chars: x.chars as number,
      };
    } else {
      const deep = tooDeep(o.tool_input, LIMITS.maxJsonDepth); // before anything walks it
      if (deep !== undefined) return `tool_input nests more than ${LIMITS.maxJsonDepth} levels deep (at ${deep})`;
      f.tool_input = o.tool_input;
    }
    return f;
  } catch (e) {
    return (e as Error).message;
  }
}

// The permission relay of `perch channel`: Claude Code sends `notifications/claude/channel/permission_request`
// {request_id, tool_name, description, input_preview} when its terminal dialog opens; the prompt is filed in the
// hub exactly as `perch hook permission-request` files one (through the hook door, POST /hook, which builds the
// request to the owner and marks it as a harness's prompt, so standing rules apply), and the owner's decision goes back as
// `notifications/claude/channel/permission` {request_id, behavior}. The terminal dialog stays open and the first
// answer wins; Claude Code does not say when the terminal answered, so a prompt is withdrawn from the Approvals
// inbox (cancel_request) when the next prompt comes (Claude Code shows one dialog at a time) or the session ends.
import { MAX_SENT_INPUT_BYTES, PROMPT_FILING_EVENT, cutOf, cutText } from '../../../shared/api/prompt-filing';
import { CALL_TIMEOUT_MS, HubDown, ToolError, obj, type ChannelHub } from './channel-hub';

type Json = Record<string, unknown>;

export interface PermissionRequestParams {
  request_id: string;
  tool_name: string;
  description: string;
  input_preview: string;
}

/** Per get_request call (LIMITS.maxWaitSecs is 60). */
const WAIT_SECS = 50;
/** The request's lifetime in the hub: the terminal dialog has no timeout, the session's end withdraws it. */
const PROMPT_TTL_SECS = 24 * 60 * 60;
/** The description is the session's own text of any length: cut short so the context stays under MAX_CONTEXT_BYTES. */
const MAX_DESCRIPTION_CHARS = 2_000;

/** The params, or why they are not a permission_request of the reference. */
export function parsePermissionRequest(params: unknown): PermissionRequestParams | string {
  const p = obj(params);
  if (!p) return 'permission_request without params';
  for (const k of ['request_id', 'tool_name', 'description', 'input_preview'] as const) {
    if (typeof p[k] !== 'string') return `permission_request without a string ${k}`;
  }
  if (!/^[a-z]{1,64}$/.test(p.request_id as string))
    return `permission_request with a malformed request_id ${JSON.stringify(String(p.request_id).slice(0, 80))}`;
  if (!(p.tool_name as string).trim()) return 'permission_request with an empty tool_name';
  return p as unknown as PermissionRequestParams;
}

/** input_preview is the tool's arguments as JSON-shaped text (cut short by older clients): the object when it parses. */
function toolInputOf(preview: string): Json | undefined {
  try {
    return obj(JSON.parse(preview));
  } catch {
    return undefined;
  }
}

/**
 * The prompt as the hook door takes it (shared/api/prompt-filing.ts), from what the channel protocol carries: the
 * hub builds the request (title, preview) from it. An input_preview that is not whole JSON (older clients cut it)
 * goes as a cut input: shown as such, never decided by a standing rule.
 */
export function promptFiling(p: PermissionRequestParams, cwd: string): Json {
  const input = toolInputOf(p.input_preview);
  const description =
    p.description.length <= MAX_DESCRIPTION_CHARS ? p.description : `${p.description.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`;
  const base: Json = {
    event: PROMPT_FILING_EVENT,
    harness: 'claude-code',
    via: 'channel',
    channel_request_id: p.request_id,
    cwd,
    tool_name: p.tool_name,
    description,
    ttl_secs: PROMPT_TTL_SECS,
  };
  if (input && Buffer.byteLength(p.input_preview) <= MAX_SENT_INPUT_BYTES) return { ...base, tool_input: input };
  return { ...base, input_cut: input ? cutOf(input) : cutText({ lead: '', lang: '', text: p.input_preview }) };
}

interface Open {
  perchId?: string;
  stop: AbortController;
}

export class PromptRelay {
  private open = new Map<string, Open>();

  constructor(
    private readonly hub: ChannelHub,
    private readonly verdict: (requestId: string, behavior: 'allow' | 'deny') => Promise<void>,
    private readonly warn: (line: string) => void,
    private readonly cwd = process.cwd(),
  ) {}

  /** The Perch request of a prompt still open (tests and the bench read it through the owner API instead). */
  get pending(): number {
    return this.open.size;
  }

  /** A new prompt: earlier ones were answered in the terminal; this one goes to the owner. */
  relay(p: PermissionRequestParams): void {
    if (this.open.has(p.request_id)) return; // sent twice: one Perch request per prompt
    for (const id of [...this.open.keys()]) void this.withdraw(id);
    const entry: Open = { stop: new AbortController() };
    this.open.set(p.request_id, entry);
    void this.run(p, entry)
      .catch((e) => {
        if (!entry.stop.signal.aborted) this.warn(`permission prompt ${p.request_id} not relayed: ${(e as Error).message}`);
      })
      .finally(() => {
        if (this.open.get(p.request_id) === entry) this.open.delete(p.request_id);
      });
  }

  /** Withdraws every open prompt (the session ended); resolves when the hub has them closed (bounded). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.open.keys()].map((id) => this.withdraw(id)));
  }

  private async withdraw(claudeId: string): Promise<void> {
    const entry = this.open.get(claudeId);
    if (!entry) return;
    this.open.delete(claudeId);
    entry.stop.abort();
    if (entry.perchId) await this.hub.call('cancel_request', { request_id: entry.perchId }, { timeoutMs: 3_000 }).catch(() => undefined);
  }

  private async run(p: PermissionRequestParams, entry: Open): Promise<void> {
    const { signal } = entry.stop;
    let r: Json;
    try {
      // Filed through the hook door, which makes the request in the direct conversation with the owner.
      r = await this.hub.filePrompt(promptFiling(p, this.cwd), { signal });
    } catch (e) {
      // A paused agent's prompts are denied with the pause reason, as the hook does.
      if (e instanceof ToolError && e.code === 'paused') return this.verdict(p.request_id, 'deny');
      throw e;
    }
    entry.perchId = typeof r.request_id === 'string' ? r.request_id : undefined;
    if (signal.aborted && entry.perchId) {
      await this.hub.call('cancel_request', { request_id: entry.perchId }, { timeoutMs: 3_000 }).catch(() => undefined);
      return;
    }
    while (r.state === 'pending' && !signal.aborted) {
      try {
        r = await this.hub.call(
          'get_request',
          { request_id: entry.perchId, wait_secs: WAIT_SECS },
          { signal, timeoutMs: WAIT_SECS * 1000 + CALL_TIMEOUT_MS },
        );
      } catch (e) {
        if (signal.aborted) return;
        if (e instanceof HubDown && !e.unauthorized) {
          await new Promise((res) => setTimeout(res, 2_000));
          continue;
        }
        throw e;
      }
    }
    if (signal.aborted) return;
    if (r.state === 'approved') return this.verdict(p.request_id, 'allow');
    if (r.state === 'rejected') return this.verdict(p.request_id, 'deny');
    // expired or cancelled: the terminal dialog decides.
  }
}

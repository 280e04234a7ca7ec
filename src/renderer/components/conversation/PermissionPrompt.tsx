// An agent's own permission prompt (its harness's PermissionRequest hook, `perch hook permission-request`) on a
// request card: who asks, in which harness session and directory, for which tool, and what it would do — a command
// as code, an edit as a diff — instead of the context's raw JSON (still there, folded); and "Always allow / Always
// deny" (this tool, or for a command the commands that start with a prefix the owner may shorten), which adds the
// standing rule and decides the card by it at once (rules.add with the request_id).
import { useState } from 'react';
import type { RequestItem } from '../../model';
import { commandOf, isPermissionPrompt, neverAllowed } from '../../../shared/features/permission-prompts';
import { promptCut } from '../../../shared/api/prompt-filing';
import { PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';
import { answerAlways } from '../../sync';
import { usePairedDevice } from '../../stores/paired-device';
import { renderMarkdown } from '../../markdown';
import { JsonView } from '../common';

type Json = Record<string, unknown>;

/** The prompt's context when the request is one (context.source), else undefined. */
export function permissionContext(r: Pick<RequestItem, 'context'>): Json | undefined {
  return isPermissionPrompt(r.context) ? r.context : undefined;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function DiffView({ file, hunks }: { file: string; hunks: Array<{ old: string; new: string }> }) {
  return (
    <figure className="perm-diff">
      <figcaption>
        Edit of <code>{file}</code>
      </figcaption>
      <pre aria-label={`Changes to ${file}`}>
        {hunks.map((h, i) => (
          <span key={i}>
            {i > 0 && <span className="diff-hunk">@@{'\n'}</span>}
            {h.old !== '' &&
              h.old.split('\n').map((l, j) => (
                <span key={`o${j}`} className="diff-del">
                  -{l}
                  {'\n'}
                </span>
              ))}
            {h.new !== '' &&
              h.new.split('\n').map((l, j) => (
                <span key={`n${j}`} className="diff-add">
                  +{l}
                  {'\n'}
                </span>
              ))}
          </span>
        ))}
      </pre>
    </figure>
  );
}

/** What the tool would do, readable: a command, an edit, a new file's content; else the hook's own preview. */
function InputPreview({ ctx }: { ctx: Json }) {
  const input = ctx.tool_input;
  const o = input && typeof input === 'object' && !Array.isArray(input) ? (input as Json) : undefined;
  const command = commandOf(input);
  if (command !== undefined) {
    const why = o && str(o.description);
    return (
      <div className="perm-preview">
        {why && <p className="perm-why">{why}</p>}
        <pre className="perm-command" aria-label="Command">
          <code>{command}</code>
        </pre>
      </div>
    );
  }
  const file = o && str(o.file_path);
  if (o && file !== undefined && str(o.old_string) !== undefined && str(o.new_string) !== undefined) {
    return <DiffView file={file} hunks={[{ old: o.old_string as string, new: o.new_string as string }]} />;
  }
  if (o && file !== undefined && Array.isArray(o.edits)) {
    const hunks = (o.edits as unknown[]).map((e) => {
      const x = (e && typeof e === 'object' ? e : {}) as Json;
      return { old: str(x.old_string) ?? '', new: str(x.new_string) ?? '' };
    });
    return <DiffView file={file} hunks={hunks} />;
  }
  if (o && file !== undefined && str(o.content) !== undefined) {
    return (
      <figure className="perm-diff">
        <figcaption>
          New content of <code>{file}</code>
        </figcaption>
        <pre aria-label={`Content of ${file}`}>
          <code>{o.content as string}</code>
        </pre>
      </figure>
    );
  }
  const preview = str(ctx.preview);
  // The hook's preview is markdown (a fenced block); rendered sanitized, like messages.
  if (preview) return <div className="perm-preview md" dangerouslySetInnerHTML={{ __html: renderMarkdown(preview) }} />;
  return null;
}

/** A term of the card's list whose value is code (a session id, a directory); nothing when there is no value. */
function CodeRow({ term, value }: { term: string; value: string | undefined }) {
  if (!value) return null;
  return (
    <>
      <dt>{term}</dt>
      <dd>
        <code>{value}</code>
      </dd>
    </>
  );
}

/** The card's body for a permission prompt: who, where, what. */
export function PermissionPreview({ r, ctx, compact }: { r: RequestItem; ctx: Json; compact?: boolean }) {
  const harness = str(ctx.harness);
  return (
    <div className="perm">
      {promptCut(ctx) && (
        <p className="perm-cut" role="note" aria-label="Not shown whole">
          <strong>Too long to show whole.</strong> Only the start and the end of what would run are shown below; the middle is not. Read it
          where it runs before you approve. No standing rule decides this prompt.
        </p>
      )}
      {!r.door && (
        <p className="perm-unfiled muted small" role="note">
          Sent by the agent itself (request_human), not filed by its harness&apos;s hook: what it says is the agent&apos;s words, and no
          standing rule decides it.
        </p>
      )}
      <dl className="perm-meta">
        <dt>Tool</dt>
        <dd>
          <code>{str(ctx.tool_name) ?? '?'}</code>
        </dd>
        <dt>Agent</dt>
        <dd>{r.requester.name}</dd>
        {harness && (
          <>
            <dt>Harness</dt>
            <dd>{PROMPT_HARNESS_LABEL[harness] ?? harness}</dd>
          </>
        )}
        <CodeRow term="Session" value={str(ctx.session_id)} />
        <CodeRow term="Directory" value={str(ctx.cwd)} />
      </dl>
      <InputPreview ctx={ctx} />
      {!compact && <JsonView value={ctx.tool_input ?? ctx} label="Raw input" />}
    </div>
  );
}

/** Whether the card offers "Always allow / Always deny": only for a prompt the hook door filed, shown whole. */
export function offersAlways(r: RequestItem, ctx: Json): boolean {
  return !!r.door && !promptCut(ctx);
}

/** "Always allow" / "Always deny" for a pending permission prompt: a standing rule, and this card decided by it. */
export function AlwaysButtons({ r, ctx }: { r: RequestItem; ctx: Json }) {
  const command = commandOf(ctx.tool_input);
  const tool = str(ctx.tool_name) ?? 'this tool';
  const [prefix, setPrefix] = useState(command?.trim() ?? '');
  const [busy, setBusy] = useState(false);
  const go = (behavior: 'allow' | 'deny') => {
    setBusy(true);
    void answerAlways(r.request_id, behavior, command !== undefined ? prefix : undefined).finally(() => setBusy(false));
  };
  const scope =
    command === undefined || !prefix.trim()
      ? `every ${tool} prompt of ${r.requester.name}`
      : `${r.requester.name}'s ${tool} commands that start with "${prefix.trim()}", with any arguments after it`;
  // A rule never allows a command with quotes, expansion, chaining or redirection: such a prompt is approved once, here.
  const never = command !== undefined ? neverAllowed(command) : undefined;
  // A paired device may add deny rules only: allow rules are added on the laptop (they would outlive the device).
  const onDevice = usePairedDevice((s) => s.me !== null);
  const allowOff =
    never !== undefined
      ? `A standing rule never allows a command with ${never}: approve this one above`
      : onDevice
        ? 'Allow rules are added on the laptop only: approve this one above'
        : undefined;
  return (
    <div className="perm-always" role="group" aria-label="Standing rule">
      {command !== undefined && (
        <label className="perm-prefix">
          <span className="small muted">Always, for commands starting with (empty: any {tool} command)</span>
          <input
            aria-label="Command prefix"
            value={prefix}
            onChange={(e) => setPrefix(e.target.value)}
            onClick={(e) => e.stopPropagation()}
          />
          <span className="small perm-scope">An allow covers any arguments after this prefix.</span>
        </label>
      )}
      <div className="row">
        {/* Bordered, not ghost buttons: bare text beside the card's words did not read as something to press. */}
        <button
          type="button"
          className="btn"
          disabled={busy || allowOff !== undefined}
          title={allowOff ?? `Allow this and ${scope} from now on`}
          onClick={() => go('allow')}
        >
          Always allow
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy}
          title={`Deny this and ${scope} from now on`}
          onClick={() => go('deny')}
        >
          Always deny
        </button>
      </div>
    </div>
  );
}

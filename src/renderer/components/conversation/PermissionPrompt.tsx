// An agent's own permission prompt (its harness's PermissionRequest hook, `perch hook permission-request`) on a
// request card: who asks, in which harness session and directory, for which tool, and what it would do — a command
// as code, an edit as a diff — instead of the context's raw JSON (still there, folded); and "Always allow / Always
// deny" (this tool, or for a command the commands that start with a prefix the owner may shorten), which adds the
// standing rule and decides the card by it at once (rules.add with the request_id).
import { useEffect, useState } from 'react';
import type { RequestItem } from '../../model';
import { commandOf, isPermissionPrompt, type RuleLifetime, type RuleScope } from '../../../shared/features/permission-prompts';
import { ruleCoverage } from '../../../shared/shell/rule-examples';
import { promptCut } from '../../../shared/api/prompt-filing';
import { PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';
import { acceptSuggestion, answerAlways, dismissSuggestion, loadSuggestions } from '../../sync';
import { hrefOf } from '../../sync/router';
import { useRules } from '../../stores/rules';
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
      {r.door && str(ctx.cannot_tell) && (
        <p className="perm-cannot-tell" role="note" aria-label="Perch cannot tell what this runs">
          <strong>Perch cannot tell what this runs:</strong> {str(ctx.cannot_tell)}. No rule allows it past a deny; read it before you
          approve.
        </p>
      )}
      <InputPreview ctx={ctx} />
      {!compact && <JsonView value={ctx.tool_input ?? ctx} label="Raw input" />}
    </div>
  );
}

/** Whether the card offers "Always allow / Always deny": only for a prompt the hook door filed, shown whole. */
export function offersAlways(r: RequestItem, ctx: Json): boolean {
  return !!r.door && !promptCut(ctx);
}

/** A decided card's comment; a prompt decided by a standing rule names it, with a link to the rule list (Settings → Decisions). */
export function DecidedByRule({ r, comment }: { r: RequestItem; comment: string }) {
  const m = r.door ? /^standing rule (pr_[A-Za-z0-9]+): (.*)$/.exec(comment) : null;
  if (!m) {
    return (
      <p>
        <strong>Comment:</strong> {comment}
      </p>
    );
  }
  return (
    <p className="decided-by-rule" aria-label="Decided by a standing rule">
      <strong>Decided by a standing rule:</strong>{' '}
      <a href={`${hrefOf({ name: 'settings' })}`} data-rule-id={m[1]}>
        {m[2]}
      </a>
    </p>
  );
}

/** "Always allow `npm test` for kit? (approved 5× in two weeks)": a suggestion from the owner's own approvals of this shape. */
function SuggestionOffer({ r, ctx }: { r: RequestItem; ctx: Json }) {
  const shape = str(ctx.rule_prefix);
  const tool = str(ctx.tool_name);
  const s = useRules((st) => st.suggestions.find((x) => x.agent.id === r.requester.id && x.tool === tool && x.shape === shape));
  const onDevice = usePairedDevice((st) => st.me !== null);
  const [busy, setBusy] = useState(false);
  // Suggestions change with every decision: read them again when a prompt that has a shape shows.
  useEffect(() => {
    if (shape && !onDevice) void loadSuggestions();
  }, [r.request_id, shape, onDevice]);
  if (!s || onDevice) return null;
  return (
    <div className="rule-suggestion" role="group" aria-label="Suggested rule">
      <span>
        Always allow <code>{s.shape}</code> for {s.agent.name}? <span className="muted">(approved {s.approved}× in two weeks)</span>
      </span>{' '}
      <button
        type="button"
        className="btn btn-ghost btn-small"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void acceptSuggestion(s, r.request_id).finally(() => setBusy(false));
        }}
      >
        Accept
      </button>{' '}
      <button type="button" className="btn btn-ghost btn-small" disabled={busy} onClick={() => void dismissSuggestion(s)}>
        Dismiss
      </button>
    </div>
  );
}

/** What a rule would cover and not, in examples (shared/shell/rule-examples.ts). */
export function RuleCoverageView({ rule }: { rule: Parameters<typeof ruleCoverage>[0] }) {
  const c = ruleCoverage(rule);
  return (
    <div className="small rule-coverage" aria-label="What the rule covers">
      <span>Covers: {c.covers.join('; ')}.</span> {c.not.length > 0 && <span className="muted">Not: {c.not.join('; ')}.</span>}
      {c.warning && (
        <span className="perm-warning" role="note">
          {' '}
          ⚠ {c.warning}
        </span>
      )}
    </div>
  );
}

/** "Always allow" / "Always deny" for a pending permission prompt: a standing rule, and this card decided by it. */
export function AlwaysButtons({ r, ctx }: { r: RequestItem; ctx: Json }) {
  const command = commandOf(ctx.tool_input);
  const tool = str(ctx.tool_name) ?? 'this tool';
  const [prefix, setPrefix] = useState(str(ctx.rule_prefix) ?? command?.trim() ?? '');
  const [anyOptions, setAnyOptions] = useState(false);
  const [scope, setScope] = useState<RuleScope>('agent');
  const [lifetime, setLifetime] = useState<RuleLifetime>('always');
  const [busy, setBusy] = useState(false);
  const p = prefix.trim();
  const go = (behavior: 'allow' | 'deny') => {
    setBusy(true);
    void answerAlways(r.request_id, behavior, command !== undefined ? prefix : undefined, {
      any_options: behavior === 'allow' && !!p && anyOptions ? true : undefined,
      scope: scope === 'agent' ? undefined : scope,
      lifetime: lifetime === 'always' ? undefined : lifetime,
    }).finally(() => setBusy(false));
  };
  const whose =
    scope === 'agent'
      ? `${r.requester.name}'s`
      : scope === 'folder'
        ? `every agent's (in ${str(ctx.cwd) ?? 'this folder'})`
        : "every agent's";
  const what = command === undefined || !p ? `every ${tool} prompt of ${whose}` : `${whose} ${tool} commands that start with "${p}"`;
  // Perch cannot tell what this command runs: no allow rule can cover it, so it is approved once, here.
  const cannotTell = str(ctx.cannot_tell);
  // A paired device may add deny rules only: allow rules are added on the laptop (they would outlive the device).
  const onDevice = usePairedDevice((s) => s.me !== null);
  // A command prefix covers one literal simple command: the hub offers one (ctx.rule_prefix) only for such a prompt.
  const oneCommand = command === undefined || !p || str(ctx.rule_prefix) !== undefined;
  const allowOff =
    cannotTell !== undefined && p
      ? 'Perch cannot tell what this runs, so no allow rule covers it: approve this one above'
      : !oneCommand
        ? 'A standing rule never allows a command with several commands, a wrapper, a substitution or a redirection to a file: approve this one above'
        : onDevice
          ? 'Allow rules are added on the laptop only: approve this one above'
          : undefined;
  return (
    <div className="perm-always" role="group" aria-label="Standing rule">
      <SuggestionOffer r={r} ctx={ctx} />
      {command !== undefined && (
        <label className="perm-prefix">
          <span className="small muted">Always, for commands starting with (empty: any {tool} command)</span>
          <input
            aria-label="Command prefix"
            value={prefix}
            onChange={(e) => setPrefix(e.target.value)}
            onClick={(e) => e.stopPropagation()}
          />
        </label>
      )}
      {command !== undefined && p && (
        <label className="small">
          <input type="checkbox" aria-label="Any options" checked={anyOptions} onChange={(e) => setAnyOptions(e.target.checked)} /> Also
          options it does not name
        </label>
      )}
      <RuleCoverageView
        rule={{ tool, command_prefix: command !== undefined && p ? p : null, behavior: 'allow', any_options: anyOptions }}
      />
      <div className="row small">
        <label>
          For{' '}
          <select aria-label="Rule scope" value={scope} onChange={(e) => setScope(e.target.value as RuleScope)}>
            <option value="agent">{r.requester.name}</option>
            {str(ctx.cwd) && <option value="folder">every agent in this folder</option>}
            <option value="every">every agent</option>
          </select>
        </label>{' '}
        <label>
          Until{' '}
          <select aria-label="Rule lifetime" value={lifetime} onChange={(e) => setLifetime(e.target.value as RuleLifetime)}>
            <option value="always">always</option>
            <option value="today">the end of today (24 h)</option>
            {str(ctx.session_id) && <option value="session">this session ends</option>}
          </select>
        </label>
      </div>
      <div className="row">
        {/* Bordered, not ghost buttons: bare text beside the card's words did not read as something to press. */}
        <button
          type="button"
          className="btn"
          disabled={busy || allowOff !== undefined}
          title={allowOff ?? `Allow this and ${what} from now on`}
          onClick={() => go('allow')}
        >
          Always allow
        </button>
        <button
          type="button"
          className="btn btn-danger"
          disabled={busy}
          title={`Deny this and ${what} from now on`}
          onClick={() => go('deny')}
        >
          Always deny
        </button>
      </div>
    </div>
  );
}

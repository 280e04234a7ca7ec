// A request an agent made of the owner: approve / reject with a comment, answer, or choose; its context as
// readable JSON (an agent's own permission prompt: a readable preview and "Always allow / deny", PermissionPrompt.tsx);
// a live countdown to its expiry. The same card shows inline and in the Approvals inbox.
import { memo, type ReactNode } from 'react';
import type { RequestItem } from '../../model';
import { useRequests } from '../../stores/requests';
import { useConversations } from '../../stores/conversations';
import { useUi } from '../../stores/ui';
import { decideWithDraft, openMessage, setRequestDraft, undoDecision } from '../../sync';
import { useNow } from '../../hooks';
import { countdown, dateTimeOf } from '../../format';
import { AgentBadge, JsonView } from '../common';
import { Icon } from '../Icon';
import { usePairedDevice } from '../../stores/paired-device';
import { CallOutcome } from '../ledger/CallOutcome';
import { AlwaysButtons, DecidedByRule, PermissionPreview, offersAlways, permissionContext } from './PermissionPrompt';

const KIND_LABEL = { approve: 'Approval', answer: 'Question', choose: 'Choice' } as const;
const STATE_LABEL: Record<string, string> = {
  pending: 'Waiting for you',
  approved: 'Approved',
  rejected: 'Rejected',
  answered: 'Answered',
  chosen: 'Chosen',
  expired: 'Expired',
  cancelled: 'Withdrawn',
};

export const RequestCard = memo(function RequestCard(props: {
  requestId: string;
  /** Shown while the request is not known yet (e.g. a pinned message whose request was not loaded). */
  fallback?: ReactNode;
  compact?: boolean;
  inInbox?: boolean;
  selected?: boolean;
  onSelect?: () => void;
}) {
  // The request's state has one home: the request (requests.list, request.* events), never the message payload.
  const r: RequestItem | undefined = useRequests((s) => s.byId[props.requestId]);
  const convTitle = useConversations((s) => (r ? (s.byId[r.conv_id]?.title ?? r.conv_title) : ''));
  const draft = useRequests((s) => s.drafts[props.requestId]);
  const now = useNow(1000);
  const approvalsOnly = usePairedDevice((s) => s.me?.scope === 'approvals'); // a phone of scope approvals cannot open conversations
  const deciding = useUi((s) => s.pendingDecisions.find((d) => d.key === props.requestId)); // in the undo window
  if (!r) return <>{props.fallback ?? null}</>;
  const pending = r.state === 'pending' && r.expires_at > now;
  const stateLabel =
    r.state === 'pending' && !pending ? 'Expired' : r.answered_in === 'terminal' ? 'Answered in the terminal' : STATE_LABEL[r.state];
  const headingId = `req-${r.request_id}-title`;
  const permission = permissionContext(r); // an agent's own permission prompt (PermissionPrompt.tsx)
  return (
    <section
      className={`request request-${pending ? 'pending' : r.state} ${props.selected ? 'selected' : ''} ${props.compact ? 'request-compact' : ''}`}
      aria-labelledby={headingId}
      data-request-id={r.request_id}
      onFocus={props.onSelect}
      onClick={props.onSelect}
    >
      <header className="request-head">
        <span className={`chip chip-kind-${r.kind}`}>{KIND_LABEL[r.kind]}</span>
        <span className={`chip chip-req-${pending ? 'pending' : r.state}`}>{stateLabel}</span>
        {pending && (
          <span className="countdown" title={`Expires ${dateTimeOf(r.expires_at)}`}>
            <Icon name="clock" size={12} /> {countdown(r.expires_at, now)}
          </span>
        )}
      </header>
      <h3 id={headingId} className="request-title">
        {r.title}
      </h3>
      <p className="request-meta">
        <strong>{r.requester.name}</strong> {r.requester.kind === 'agent' && <AgentBadge />} asks
        {props.inInbox && (
          <>
            {' '}
            in{' '}
            {approvalsOnly ? (
              <strong>{convTitle || 'a conversation'}</strong>
            ) : (
              <button
                type="button"
                className="link"
                onClick={(e) => {
                  e.stopPropagation();
                  openMessage(r.conv_id, r.msg_id);
                }}
              >
                {convTitle || 'the conversation'}
              </button>
            )}
          </>
        )}
      </p>
      {permission ? (
        <PermissionPreview r={r} ctx={permission} compact={props.compact} />
      ) : (
        r.context !== undefined &&
        r.context !== null && <JsonView value={r.context} label="Context" open={!props.compact && JSON.stringify(r.context).length < 400} />
      )}
      {pending && deciding ? (
        <p className="request-deciding" role="status">
          {deciding.text}: {deciding.sending ? 'sending…' : `sent in ${Math.max(0, Math.ceil((deciding.until - now) / 1000))} s`}{' '}
          {!deciding.sending && (
            <button type="button" className="btn btn-small" onClick={() => undoDecision(deciding.id)}>
              Undo
            </button>
          )}
        </p>
      ) : pending ? (
        <div className="request-actions">
          {r.kind === 'answer' && (
            <textarea
              className="request-answer"
              aria-label="Your answer"
              placeholder="Your answer"
              rows={2}
              value={draft?.answer ?? ''}
              onChange={(e) => setRequestDraft(r.request_id, { answer: e.target.value })}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) decideWithDraft(r.request_id, 'answer');
              }}
            />
          )}
          <input
            className="request-comment"
            aria-label="Comment (optional)"
            placeholder={`Comment for ${r.requester.name} (optional)`}
            value={draft?.comment ?? ''}
            onChange={(e) => setRequestDraft(r.request_id, { comment: e.target.value })}
          />
          <div className="row">
            {r.kind === 'approve' && (
              <button type="button" className="btn btn-primary" onClick={() => decideWithDraft(r.request_id, 'approve')}>
                Approve
              </button>
            )}
            {r.kind === 'answer' && (
              <button
                type="button"
                className="btn btn-primary"
                disabled={!draft?.answer?.trim()}
                onClick={() => decideWithDraft(r.request_id, 'answer')}
              >
                Send answer
              </button>
            )}
            {r.kind === 'choose' &&
              (r.options ?? []).map((o, i) => (
                <button
                  key={o}
                  type="button"
                  className="btn btn-primary"
                  aria-keyshortcuts={i < 9 && props.inInbox ? String(i + 1) : undefined}
                  onClick={() => decideWithDraft(r.request_id, 'choose', o)}
                >
                  {i < 9 && props.inInbox ? <kbd aria-hidden="true">{i + 1}</kbd> : null} {o}
                </button>
              ))}
            <button type="button" className="btn btn-danger" onClick={() => decideWithDraft(r.request_id, 'reject')}>
              Reject
            </button>
          </div>
          {permission && r.kind === 'approve' && !approvalsOnly && offersAlways(r, permission) && <AlwaysButtons r={r} ctx={permission} />}
        </div>
      ) : (
        <div className="request-outcome">
          {r.answered_in === 'terminal' && (
            <p className="request-withdrawn">
              <strong>Answered in the terminal:</strong> Claude Code&apos;s own dialog dealt with this prompt.
            </p>
          )}
          {r.delivery === 'undelivered' && (
            <p className="request-withdrawn">
              <strong>Never reached the harness:</strong> its hook was gone before this decision could be answered (the hub stopped, or the
              hook gave up), so the harness&apos;s own dialog decided.
            </p>
          )}
          {r.withdrawn && (
            <p className="request-withdrawn">
              <strong>Withdrawn:</strong> {r.withdrawn}. Nobody waits for this decision any more.
            </p>
          )}
          {r.outcome?.answer && (
            <p>
              <strong>Answer:</strong> {r.outcome.answer}
            </p>
          )}
          {r.outcome?.choice && (
            <p>
              <strong>Choice:</strong> {r.outcome.choice}
            </p>
          )}
          {r.outcome?.comment && <DecidedByRule r={r} comment={r.outcome.comment} />}
          {r.door === 'hook' && !approvalsOnly && <CallOutcome r={r} />}
          {r.decided_by && (
            <p className="muted small">
              {stateLabel} by {r.decided_by.name}
              {r.decided_at ? ` · ${dateTimeOf(r.decided_at)}` : ''}
            </p>
          )}
        </div>
      )}
    </section>
  );
});

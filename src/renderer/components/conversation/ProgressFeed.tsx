// The live progress feed: what agents are doing (thinking, tool calls, results, plans, steps, errors),
// newest first, virtualized; for one conversation, one agent, or the whole fleet.
import { memo, useCallback } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ProgressView } from '../../model';
import { useProgress } from '../../stores/progress';
import { useConversations } from '../../stores/conversations';
import { openView } from '../../sync';
import { timeOf, dateTimeOf } from '../../format';
import { VirtualList } from '../VirtualList';
import { JsonView } from '../common';
import { Icon } from '../Icon';
import { HARNESS_LABEL, type HarnessName } from '../../../shared/agents/harness';

export const KIND_LABEL: Record<string, string> = {
  thinking: 'Thinking',
  tool_call: 'Tool call',
  tool_result: 'Tool result',
  plan: 'Plan',
  step: 'Step',
  error: 'Error',
};

const getKey = (p: ProgressView) => String(p.id);
const estimate = (p: ProgressView) => (harnessOfRow(p) ? 40 : p.data !== undefined ? 74 : 52) + 18 * Math.floor(p.text.length / 80);

export function ProgressFeed({
  convId,
  agentId,
  harnessOf,
  showConversation,
}: {
  convId?: string;
  agentId?: string | null;
  /** With convId: these agents' harness rows too (kept in each agent's inbox), as Fleet shows them. */
  harnessOf?: readonly string[];
  showConversation?: boolean;
}) {
  const items = useProgress(
    useShallow((s) =>
      s.items.filter(
        (p) =>
          (!convId || p.conv_id === convId || (harnessOf?.includes(p.agent.id) && harnessOfRow(p) !== null)) &&
          (!agentId || p.agent.id === agentId),
      ),
    ),
  );
  const render = useCallback((p: ProgressView) => <ProgressItem p={p} showConversation={!!showConversation} />, [showConversation]);
  return (
    <VirtualList<ProgressView>
      items={items}
      getKey={getKey}
      estimate={estimate}
      render={render}
      stick="top"
      label={convId ? 'Progress in this conversation' : 'Progress feed'}
      role="feed"
      className="feed"
      empty={<p className="muted pad">No activity yet. Agents report it with the progress tool; it shows here live.</p>}
    />
  );
}

/** The harness a row came from (hub/control/harness.ts files its rows with data.harness), if it did. */
function harnessOfRow(p: ProgressView): string | null {
  const h = (p.data as { harness?: { name?: unknown } } | null | undefined)?.harness;
  return h && typeof h.name === 'string' ? (HARNESS_LABEL[h.name as HarnessName] ?? h.name) : null;
}

const ProgressItem = memo(function ProgressItem({ p, showConversation }: { p: ProgressView; showConversation: boolean }) {
  // A harness's activity (session, turn, tool call, blocked call) is the agent's own: one compact line under the
  // agent, not "in Notes for kit" with its raw data.
  const harness = harnessOfRow(p);
  const convTitle = useConversations((s) => (showConversation && !harness ? s.byId[p.conv_id]?.title : undefined));
  if (harness) {
    return (
      <article className={`progress progress-${p.kind} progress-harness`} aria-label={`${harness} activity of ${p.agent.name}`}>
        <span className="progress-icon">
          <Icon name={p.kind} size={16} label={KIND_LABEL[p.kind] ?? p.kind} />
        </span>
        <div className="progress-main">
          <p className="progress-line">
            <strong>{p.agent.name}</strong> <span className="progress-text">{p.text}</span>{' '}
            <time className="muted small" dateTime={new Date(p.at).toISOString()} title={dateTimeOf(p.at)}>
              {timeOf(p.at)}
            </time>
          </p>
        </div>
      </article>
    );
  }
  return (
    <article className={`progress progress-${p.kind}`} aria-label={`${KIND_LABEL[p.kind] ?? p.kind} from ${p.agent.name}`}>
      <span className="progress-icon">
        <Icon name={p.kind} size={16} label={KIND_LABEL[p.kind] ?? p.kind} />
      </span>
      <div className="progress-main">
        <div className="progress-head">
          <strong>{p.agent.name}</strong> <span className="progress-kind">{KIND_LABEL[p.kind] ?? p.kind}</span>
          {showConversation && convTitle && (
            <>
              {' '}
              in{' '}
              <button type="button" className="link" onClick={() => openView({ name: 'conversation', convId: p.conv_id })}>
                {convTitle}
              </button>
            </>
          )}
          <time className="muted small" dateTime={new Date(p.at).toISOString()} title={dateTimeOf(p.at)}>
            {timeOf(p.at)}
          </time>
        </div>
        <p className="progress-text">{p.text}</p>
        {p.data !== undefined && p.data !== null && <JsonView value={p.data} label="Data" />}
      </div>
    </article>
  );
});

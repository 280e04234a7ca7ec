// An agent's connection snippets again, after its key dialog closed.
import { awaySnippets, connectionSnippets, keyEnvVar } from '../../../shared/agents/snippets';
import { useSession } from '../../stores/session';
import { Dialog } from '../common';
import { Snippets } from './Snippets';
import type { AgentSummary } from '../../../shared/agents/agents';

/** The connection snippets again, after the key dialog closed: the key stays unknown, they refer to PERCH_KEY_<AGENT>. */
export function ConnectDialog({
  agent,
  from,
  connections,
  onClose,
}: {
  agent: string;
  from?: string[];
  connections?: AgentSummary['connections'];
  onClose: () => void;
}) {
  const mcpUrl = useSession((s) => s.info?.mcp_url);
  const port = Number(/:(\d+)\/mcp$/.exec(mcpUrl ?? '')?.[1]) || 0;
  // Where its own key may connect from (containers, tailnet): the snippets for there too.
  const away = mcpUrl && from ? awaySnippets(agent, from, { port }, null) : {};
  const env = keyEnvVar(agent);
  return (
    <Dialog title={`Connect ${agent}`} onClose={onClose} wide>
      <p className="muted">
        Perch keeps only a hash of {agent}’s key, so these snippets use <code>${env}</code> where the key goes: set it to the key you were
        shown when you added {agent} (or rotate the key for a new one). Clients that cannot read the environment need the key pasted in
        place of <code>{`\${${env}}`}</code>.
      </p>
      <ConnectedWhere agent={agent} connections={connections ?? []} />
      {mcpUrl ? (
        <Snippets snippets={{ ...(from && !from.includes('local') ? {} : connectionSnippets(mcpUrl, agent, null)), ...away }} />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </Dialog>
  );
}

/** Where `perch connect --write` connected the agent, each with the `perch disconnect` that undoes exactly that. */
function ConnectedWhere({ agent, connections }: { agent: string; connections: NonNullable<AgentSummary['connections']> }) {
  return (
    <section aria-label={`Where ${agent} is connected`}>
      <h3>Where {agent} is connected</h3>
      {connections.length === 0 ? (
        <p className="muted">
          No connection recorded or found: <code>perch connect CLIENT {agent} --write</code> records each one it makes, and the hub records
          those it finds in the harnesses&apos; files when it starts.
        </p>
      ) : (
        <ul className="connections">
          {connections.map((c) => {
            const project = c.scope === 'project' ? ` --project ${c.dir}` : '';
            return (
              <li key={`${c.client} ${c.scope} ${c.dir}`}>
                <strong>{c.client}</strong> {c.scope === 'user' ? `user scope (${c.dir})` : `project ${c.dir}`}: to undo it,{' '}
                <code>{`perch disconnect ${c.client} ${agent}${project}`}</code> shows the diff; add <code>--write</code> to make it (each
                file backed up first).
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

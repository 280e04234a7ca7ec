// Migration 21: standing rules read by a shell parser: options, provenance, scope, lifetime, suggestions. Never edit it once shipped; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration21: Migration = {
  version: 21,
  name: 'standing rules: options, provenance, scope, lifetime and suggestions',
  // permission_rules (hub/features/requests/permission-rules.ts decides with them, shared/shell/rules.ts matches):
  // - any_options: 1 when the owner widened an allow prefix to options it does not name (shown with a warning).
  // - exact: 1 when an allow covers only the command it names, no argument after it (an accepted suggestion).
  // - from_request_id: the prompt the rule was added from (a link); decided_count and last_used_at: how many prompts
  //   it decided and when it last did (the rule list sorts by it and offers to remove rules unused for 30 days).
  // - scope: 'agent' (agent_id's prompts), 'folder' (every agent's prompts whose hook cwd is folder or under it), or
  //   'every' (every agent's); agent_id stays the agent it was added for.
  // - lifetime: 'always', 'today' (until expires_at) or 'session' (only prompts of session_id, the harness's session).
  // requests.decided_by_rule: the rule that decided a prompt (its card names it); requests.prompt_shape: the
  // normalized command (or tool) of a harness's prompt, what suggestions count (hub/features/rules/suggestions.ts).
  // rule_suggestions: a suggestion the owner dismissed (never offered again) or accepted.
  sql: /* sql */ `
ALTER TABLE permission_rules ADD COLUMN any_options INTEGER NOT NULL DEFAULT 0 CHECK (any_options IN (0, 1));
ALTER TABLE permission_rules ADD COLUMN exact INTEGER NOT NULL DEFAULT 0 CHECK (exact IN (0, 1));
ALTER TABLE permission_rules ADD COLUMN from_request_id TEXT;
ALTER TABLE permission_rules ADD COLUMN decided_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE permission_rules ADD COLUMN last_used_at INTEGER;
ALTER TABLE permission_rules ADD COLUMN scope TEXT NOT NULL DEFAULT 'agent' CHECK (scope IN ('agent', 'folder', 'every'));
ALTER TABLE permission_rules ADD COLUMN folder TEXT;
ALTER TABLE permission_rules ADD COLUMN lifetime TEXT NOT NULL DEFAULT 'always' CHECK (lifetime IN ('session', 'today', 'always'));
ALTER TABLE permission_rules ADD COLUMN session_id TEXT;
ALTER TABLE permission_rules ADD COLUMN expires_at INTEGER;
ALTER TABLE requests ADD COLUMN decided_by_rule TEXT;
ALTER TABLE requests ADD COLUMN prompt_shape TEXT;
CREATE INDEX requests_by_prompt_shape ON requests (requester_id, prompt_shape, created_at) WHERE prompt_shape IS NOT NULL;
CREATE TABLE rule_suggestions (
  agent_id  TEXT NOT NULL,
  tool      TEXT NOT NULL,
  shape     TEXT NOT NULL,
  state     TEXT NOT NULL CHECK (state IN ('dismissed', 'accepted')),
  at        INTEGER NOT NULL,
  PRIMARY KEY (agent_id, tool, shape)
);
`,
};

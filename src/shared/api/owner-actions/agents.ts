// Owner actions of agents: adding them, their config and keys, pausing them, their daily caps, scoped keys and places.
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id, places } from './define';
import { LIMITS } from '../../limits';
import { KEY_SCOPES } from '../../agents/scoped-keys';

export const agentActions = {
  'agents.list': {
    device: 'full',
    description: 'Agents with their config, key hint and whether they are waiting.',
    input: () => z.strictObject({}),
  },
  'agents.add': {
    device: 'laptop',
    description: 'Add an agent; its key is shown once, with connection snippets.',
    input: () =>
      z.strictObject({
        name: z.string().min(1).max(40),
        description: z.string().max(2000).optional(),
        instructions: z.string().max(LIMITS.maxTextChars).optional(),
        from: places().optional(),
      }),
  },
  // mcp_servers: a server's command and args are a process the agent's harness may start, so only the laptop sets them.
  'agents.update_config': {
    device: 'full',
    laptopFields: ['mcp_servers'],
    description: "Change an agent's description and role config; its version rises and the agent gets config.updated.",
    input: () =>
      z.strictObject({
        agent: id(),
        description: z.string().max(2000).optional(),
        name: z.string().max(200).optional(),
        instructions: z.string().max(LIMITS.maxTextChars).optional(),
        skills: z
          .array(z.object({ name: z.string().min(1), description: z.string().optional(), url: z.string().optional() }))
          .max(100)
          .optional(),
        mcp_servers: z
          .array(
            z.object({
              name: z.string().min(1),
              url: z.string().optional(),
              command: z.string().optional(),
              args: z.array(z.string()).optional(),
              description: z.string().optional(),
            }),
          )
          .max(100)
          .optional(),
        apis: z
          .array(
            z.object({
              name: z.string().min(1),
              base_url: z.string().optional(),
              description: z.string().optional(),
              docs_url: z.string().optional(),
            }),
          )
          .max(100)
          .optional(),
      }),
  },
  'agents.rotate_key': {
    device: 'laptop',
    description: 'Give an agent a new key (the old one stops working at once, and calls waiting under it end with 401); shown once.',
    input: () => z.strictObject({ agent: id() }),
  },
  'agents.revoke': {
    device: 'full',
    description: "Revoke an agent's key: it and the agent's scoped keys stop working at once, and calls waiting under them end with 401.",
    input: () => z.strictObject({ agent: id() }),
  },
  // owner control: pause, resume, daily caps and usage (hub/control/control.ts)
  'agents.pause': {
    device: 'full',
    description:
      'Pause an agent: its writing tools are refused with `paused` (reads still work) and its waiting get_updates returns agent.paused (with the reason) at once. Survives restarts.',
    input: () => z.strictObject({ agent: id(), reason: z.string().max(LIMITS.maxTitleChars).optional() }),
  },
  'agents.resume': {
    device: 'full',
    description: 'Resume a paused agent (paused by the owner or by a cap): it gets agent.resumed and is woken.',
    input: () => z.strictObject({ agent: id() }),
  },
  'agents.pause_all': {
    device: 'full',
    description: 'Pause every agent at once (the kill switch), with an optional reason.',
    input: () => z.strictObject({ reason: z.string().max(LIMITS.maxTitleChars).optional() }),
  },
  'agents.resume_all': { device: 'full', description: 'Resume every paused agent.', input: () => z.strictObject({}) },
  'agents.set_caps': {
    device: 'full',
    description:
      "Set an agent's daily caps (the owner's local day): cost_usd (reported in progress data.usage), messages, tool_calls; null lifts a cap, off: true lifts all. Reaching one pauses the agent with reason budget.",
    input: () =>
      z.strictObject({
        agent: id(),
        cost_usd: z.number().min(0).max(1e9).nullable().optional(),
        messages: z.number().int().min(0).max(1e9).nullable().optional(),
        tool_calls: z.number().int().min(0).max(1e9).nullable().optional(),
        off: z.boolean().optional(),
      }),
  },
  'agents.controls': {
    device: 'full',
    description: "Per agent: pause (who, why, since), daily caps, today's usage and the last 14 days of usage (oldest first).",
    input: () => z.strictObject({}),
  },
  // Scoped keys (hub/identity/agent-keys.ts).
  'agents.add_key': {
    device: 'laptop',
    description:
      'Issue an extra key for an agent with scopes (read, write, files, state, ask; default all) and an optional expiry (ms since epoch); the key is shown once.',
    input: () =>
      z.strictObject({
        agent: id(),
        name: z.string().min(1).max(60),
        scopes: z.array(z.enum(KEY_SCOPES)).min(1).max(KEY_SCOPES.length).optional(),
        expires_at: z.number().int().min(0).optional(),
        from: places().optional(),
      }),
  },
  'agents.set_from': {
    device: 'laptop',
    description:
      "Set where one key of an agent may connect from: local (this computer's loopback, the default), containers (the container bridge listener), tailnet (through the HTTPS front) and IPv4 ranges (CIDR). Without key_id: the agent's own key, which its wake runs' keys inherit. A bad place changes nothing; a range covering every address (0.0.0.0/0) is kept, with a warning in the answer.",
    input: () => z.strictObject({ agent: id(), key_id: id().optional(), from: places() }),
  },
  'agents.list_keys': {
    device: 'full',
    description: "An agent's extra keys: name, scopes, expiry, whether revoked or expired (never the key).",
    input: () => z.strictObject({ agent: id() }),
  },
  'agents.revoke_key': {
    device: 'full',
    description: 'Revoke one extra key (the agent and its other keys keep working); calls waiting under it end with 401.',
    input: () => z.strictObject({ key_id: id() }),
  },
} as const satisfies ActionDefs;

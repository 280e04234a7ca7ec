// Owner actions of an agent's budget brake, and standing rules for agents' own permission prompts.
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id } from './define';
import { BRAKES } from '../../agents/brakes';

export const brakeRuleActions = {
  'agents.set_brakes': {
    device: 'full',
    description: `Set an agent's budget: messages it may send per conversation per hour (1 to ${BRAKES.budgetMax}), "off", or "default" (${BRAKES.budgetPerHour}). The other brakes (loop, duplicate, notice) are fixed.`,
    input: () =>
      z.strictObject({
        agent: id(),
        budget: z.union([z.number().int().min(1).max(BRAKES.budgetMax), z.literal('off'), z.literal('default')]),
      }),
  },
  'rules.list': {
    device: 'full',
    description: "Standing rules for agents' own permission prompts (`perch hook permission-request`): every rule, or one agent's.",
    input: () => z.strictObject({ agent: id().optional() }),
  },
  'rules.add': {
    device: 'full',
    description:
      "Always allow or always deny an agent's permission prompts of one tool (e.g. Bash; a Cursor MCP tool is MCP:<tool>@<server>), or only its commands that start with command_prefix (plain words). Rules decide on what the command runs, read by a Bash parser (docs/design.md, Standing rules): an allow covers a command only when every simple command in it is literal and starts with an allow rule's words, with no option the rule does not name (unless any_options; with exact, no argument at all after its words), no wrapper (sudo, env, timeout, xargs…), -c or eval string, substitution, leading VAR=val or redirection to a file; a deny matches its program (by basename) and its other words in order in any simple command anywhere (through wrappers, -c strings and substitutions), and while a deny exists, a command Perch cannot read goes to you. Rules decide only prompts filed by the hook door, shown whole, in the agent's direct conversation with you: decided at once, recorded as decided by you with the rule named, not notified; a deny wins. scope: agent (default), folder (every agent whose hook cwd is in folder) or every (every agent); lifetime: always (default), today, or session (the prompt's harness session; with request_id only). An allow rule is added on the laptop only: a paired device may add deny rules (403 forbidden for an allow). Give agent and tool, or answer a prompt \"always\" with its request_id: the rule is for that agent and tool (command_prefix, if given, must cover its command), and the prompt, if still pending, is decided by it at once. The same rule again answers added: false.",
    input: () =>
      z.strictObject({
        agent: id().optional(),
        tool: z.string().min(1).max(200).optional(),
        request_id: id().optional(),
        command_prefix: z.string().min(1).max(1000).optional(),
        behavior: z.enum(['allow', 'deny']),
        any_options: z.boolean().optional(),
        exact: z.boolean().optional(),
        scope: z.enum(['agent', 'folder', 'every']).optional(),
        folder: z.string().min(1).max(1000).optional(),
        lifetime: z.enum(['session', 'today', 'always']).optional(),
      }),
  },
  'rules.remove': {
    device: 'full',
    description: 'Remove a standing rule: the prompts it matched go to you again.',
    input: () => z.strictObject({ rule_id: id() }),
  },
  'rules.import': {
    device: 'full',
    description:
      'Add many standing rules at once (what `perch rules export` wrote): each is checked as rules.add checks it, and one bad rule imports nothing. Rules already there are kept (counted in kept). Allow rules only from the laptop.',
    input: () =>
      z.strictObject({
        rules: z
          .array(
            z.strictObject({
              agent: id(),
              tool: z.string().min(1).max(200),
              command_prefix: z.string().min(1).max(1000).nullable(),
              behavior: z.enum(['allow', 'deny']),
              any_options: z.boolean().optional(),
              exact: z.boolean().optional(),
              scope: z.enum(['agent', 'folder', 'every']).optional(),
              folder: z.string().min(1).max(1000).nullable().optional(),
              lifetime: z.enum(['today', 'always']).optional(),
            }),
          )
          .max(1000),
      }),
  },
  'rules.suggestions': {
    device: 'full',
    description:
      "Standing rules Perch suggests from your own decisions: an agent's prompt shape (the command prefix that covers it, e.g. npm test) you approved at least 3 times in 14 days and never rejected, not already covered by a rule, not dismissed. Never for a command Perch cannot read or a prompt too long to show.",
    input: () => z.strictObject({ agent: id().optional() }),
  },
  'rules.suggestion_accept': {
    device: 'full',
    description:
      'Accept a suggestion: the exact allow rule (agent, tool, shape as command_prefix, exact: nothing after it) is added, on the laptop only (403 forbidden from a paired device). With the request_id of a pending prompt of that shape, the prompt is decided by the rule at once.',
    input: () =>
      z.strictObject({ agent: id(), tool: z.string().min(1).max(200), shape: z.string().min(1).max(200), request_id: id().optional() }),
  },
  'rules.suggestion_dismiss': {
    device: 'full',
    description: 'Dismiss a suggestion: it is never offered again.',
    input: () => z.strictObject({ agent: id(), tool: z.string().min(1).max(200), shape: z.string().min(1).max(200) }),
  },
} as const satisfies ActionDefs;

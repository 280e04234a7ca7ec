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
      "Always allow or always deny an agent's permission prompts of one tool (e.g. Bash; a Cursor MCP tool is MCP:<tool>@<server>), or only its commands that start with command_prefix. Rules read the command's words as the shell splits them, quotes removed: an allow prefix covers the commands that start with its words and ANY arguments after them, but never a command with quotes, backslashes, ; & | ` $ ( ) < > * ? [ { ~ or a line break, or with an option after the prefix that runs other code (--script-shell, git -c / -C, --upload-pack, --exec …), so an allow whose command_prefix has such syntax is refused; a deny prefix matches its first word followed by its other words in order anywhere after it (git -C . push is git push) in any of the command's simple commands. Rules decide only prompts filed by perch hook permission-request or perch channel (the hook door), shown whole, in the agent's direct conversation with you: such a prompt is then decided at once, recorded as decided by you with the rule in its comment, and not notified; any matching deny wins over an allow. An allow rule is added on the laptop only: a paired device may add deny rules (403 forbidden for an allow). Each rule records who added it (added_by). Give agent and tool, or answer a prompt \"always\" with its request_id instead: the rule is for that agent and tool (command_prefix, if given, must cover its command), and the prompt, if still pending, is decided by it at once (request in the answer). The same rule again answers added: false.",
    input: () =>
      z.strictObject({
        agent: id().optional(),
        tool: z.string().min(1).max(200).optional(),
        request_id: id().optional(),
        command_prefix: z.string().min(1).max(1000).optional(),
        behavior: z.enum(['allow', 'deny']),
      }),
  },
  'rules.remove': {
    device: 'full',
    description: 'Remove a standing rule: the prompts it matched go to you again.',
    input: () => z.strictObject({ rule_id: id() }),
  },
} as const satisfies ActionDefs;

// Owner actions of review mode and the writes it holds.
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id } from './define';
import { LIMITS } from '../../limits';

export const reviewActions = {
  // review mode (hub/features/review/review.ts)
  'agents.set_review': {
    device: 'full',
    description:
      'Turn review mode on or off for an agent. While on, every write of it that others would read is held (send_message, send_card, send_file, edit_message, request_human, create_task, create_group, handoff, update_task with a note: the call answers held: true and a held_id) until the owner sends or discards each, and a named reaction is refused; items already held stay held when it is turned off.',
    input: () => z.strictObject({ agent: id(), on: z.boolean() }),
  },
  'held.list': {
    device: 'full',
    description:
      'Writes held by review mode, waiting for the owner (oldest first). kind: message, card, file, edit (edit_of: the message and the text others read now), request (request: kind, options, assignees, context), task or group (conv_id null; members, assignee), task_update (state_to, assignee) or handoff (handoff_to). text is the words under review.',
    input: () => z.strictObject({}),
  },
  'held.send': {
    device: 'full',
    description:
      'Do a held item as its agent: post it, make the edit, request, task channel, group, task update or handoff. A message it posts or edits gets provenance reviewed: true (and owner_edited: true when text changes it). text replaces the words under review (message text, card text, file caption, new text of an edit, request or task or group title, note). The agent gets held.sent (with the text as posted, and data.result for tools other than the sends) and is woken.',
    input: () => z.strictObject({ held_id: id(), text: z.string().max(LIMITS.maxTextChars).optional() }),
  },
  'held.discard': {
    device: 'full',
    description: "Drop a held item (a held file's bytes are deleted); nothing is posted. The agent gets held.discarded and is woken.",
    input: () => z.strictObject({ held_id: id() }),
  },
} as const satisfies ActionDefs;

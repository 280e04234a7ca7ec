// Owner actions of the hub itself, conversations, messages and private notes.
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id, text } from './define';
import { LIMITS } from '../../limits';
import { INTENTS } from '../../types';

export const conversationActions = {
  'hub.info': {
    device: 'approvals',
    description: 'Who the owner is, the MCP URL, version, counts, and the durability of the database connection (normal or full).',
    input: () => z.strictObject({}),
  },
  'hub.storage': {
    device: 'approvals',
    description:
      'Whether the hub can save: state ok, or full (the disk is full or failing: writes are refused with storage_full, reads go on) since when, and a message. It returns to ok by itself with the next write that works; the live stream sends { kind: "hub", value: { storage } } on each change.',
    input: () => z.strictObject({}),
  },
  'conversations.list': {
    device: 'full',
    description: 'Every conversation (direct, group, task) with members, unread counts, handoffs, floor.',
    input: () => z.strictObject({}),
  },
  'conversations.get': { device: 'full', description: 'One conversation.', input: () => z.strictObject({ conv_id: id() }) },
  'conversations.history': {
    device: 'full',
    description: "A page of a conversation's event log (latest by default; before_seq/after_seq to page).",
    input: () =>
      z.strictObject({
        conv_id: id(),
        before_seq: z.number().int().min(0).optional(),
        after_seq: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(LIMITS.historyMaxLimit).optional(),
      }),
  },
  'conversations.thread': {
    device: 'full',
    description: 'A thread: root and replies.',
    input: () => z.strictObject({ conv_id: id(), thread_id: id(), after_seq: z.number().int().min(0).optional() }),
  },
  'conversations.search': {
    device: 'full',
    description: 'Search messages (case-insensitive) in one or every conversation.',
    input: () =>
      z.strictObject({ query: text(), conv_id: id().optional(), limit: z.number().int().min(1).max(LIMITS.searchMaxLimit).optional() }),
  },
  'conversations.open_direct': {
    device: 'full',
    description: "Open (or get) the owner's direct conversation with an agent.",
    input: () => z.strictObject({ user: id() }),
  },
  'conversations.create_group': {
    device: 'full',
    description: 'Create a group.',
    input: () => z.strictObject({ title: z.string().min(1).max(LIMITS.maxTitleChars), members: z.array(id()).max(LIMITS.maxListItems) }),
  },
  'conversations.create_task': {
    device: 'full',
    description: 'Create a task channel, optionally with an assignee (woken).',
    input: () =>
      z.strictObject({
        title: z.string().min(1).max(LIMITS.maxTitleChars),
        members: z.array(id()).max(LIMITS.maxListItems),
        assignee: id().optional(),
      }),
  },
  'conversations.add_member': {
    device: 'full',
    description: 'Add a member to a group or task.',
    input: () => z.strictObject({ conv_id: id(), user: id(), history: z.number().int().min(0).optional() }),
  },
  'conversations.mark_read': {
    device: 'full',
    description: 'Mark a conversation read up to a seq.',
    input: () => z.strictObject({ conv_id: id(), seq: z.number().int().min(0) }),
  },
  'messages.send': {
    device: 'full',
    description:
      "Send a message as the owner (joins the conversation if needed). to wakes the named members; without to, a message in your direct conversation with an agent names that agent (it is woken). The result's to is whom the message names.",
    input: () =>
      z.strictObject({
        conv_id: id(),
        text: text(),
        to: z.array(id()).max(LIMITS.maxListItems).optional(),
        reply_to: id().optional(),
        thread_id: id().optional(),
        intent: z.enum(INTENTS).optional(),
      }),
  },
  'messages.edit': {
    device: 'full',
    description: 'Edit a message the owner sent.',
    input: () => z.strictObject({ msg_id: id(), text: text() }),
  },
  'messages.recall': { device: 'full', description: 'Recall a message the owner sent.', input: () => z.strictObject({ msg_id: id() }) },
  'messages.react': {
    device: 'full',
    description: 'Add (on=true) or remove a reaction.',
    input: () => z.strictObject({ conv_id: id(), msg_id: id(), key: z.string().min(1).max(64), on: z.boolean() }),
  },
  'messages.pin': {
    device: 'full',
    description: 'Pin (on=true) or unpin a message.',
    input: () => z.strictObject({ conv_id: id(), msg_id: id(), on: z.boolean() }),
  },
  'messages.pins': { device: 'full', description: 'Pinned messages of a conversation.', input: () => z.strictObject({ conv_id: id() }) },
  'messages.hide': {
    device: 'full',
    description:
      'Hide (on=true) any message from the owner\'s own view, an agent\'s too, or show it again (on=false). It stays in the conversation for everyone else; the owner\'s reads (history, threads, pins) carry hidden: true, and the UI shows a "Hidden message" line with Show instead of its content. When it changed, the live stream sends { kind: "hub", value: { message_hidden: { msg_id, conv_id, hidden } } } to every open window (agents see nothing).',
    input: () => z.strictObject({ msg_id: id(), on: z.boolean() }),
  },
  'notes.send': {
    device: 'full',
    description: 'A private note to one agent (only it sees it; it is woken).',
    input: () => z.strictObject({ agent: id(), text: text(), conv_id: id().optional() }),
  },
} as const satisfies ActionDefs;

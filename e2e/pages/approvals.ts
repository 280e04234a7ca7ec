// The Approvals screen: what waits for the owner's decision (requests an agent made, held messages of an agent in
// review mode), the inbox's count in the sidebar, the undo notice, and the empty state when nothing waits. A request
// card looks the same inline in a conversation, so requestCard takes any scope (the page, or the timeline).
import type { Locator, Page } from 'playwright-core';
import { screenTitle } from './app';
import { on, type Part } from './on';

export const approvalsTitle = (page: Page): Part => screenTitle(page, 'Approvals');

/** The empty state: "Nothing is waiting for you." */
export const nothingWaiting = (page: Page): Part => on(page).text('Nothing is waiting for you.');

/** The sidebar's Approvals entry while it counts n pending items ("Approvals … n pending"). */
export const pendingCount = (page: Page, n: number): Part => on(page).link(new RegExp(`^Approvals.*\\b${n} pending`));

/** The Undo button of a decision still in its undo window (the notice, or the card). */
export const undoButton = (scope: Page | Locator): Part => on(scope as Locator).button('Undo');

/** The undo notice's line for a decision: "Approve “title” — sent in N s". */
export const decisionNotice = (page: Page, verb: string, title: string): Part =>
  on(page).text(new RegExp(`${verb} “${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}” — sent in \\d s`));

/** What the owner does on a request card, and the parts of it a spec reads. */
export interface RequestActions {
  readonly approveButton: Part;
  readonly rejectButton: Part;
  readonly alwaysAllowButton: Part;
  readonly alwaysDenyButton: Part;
  /** The "Command prefix" field of a standing rule (a harness prompt with a command). */
  readonly prefixField: Part;
  readonly commentField: Part;
  readonly answerField: Part;
  /** The card's state chip while it reads label ("Waiting for you", "Approved", "Withdrawn", …). */
  state(label: string): Part;
  /** Approve, with an optional comment for the agent. */
  approve(opts?: { comment?: string }): Promise<void>;
  /** Reject, with an optional comment for the agent. */
  reject(opts?: { comment?: string }): Promise<void>;
  /** Clicks one of a choose request's options. */
  choose(option: string): Promise<void>;
  /** Always allow (a standing rule), with the prefix typed first when given. */
  alwaysAllow(opts?: { prefix?: string }): Promise<void>;
  /** Always deny (a standing rule), with the prefix typed first when given. */
  alwaysDeny(opts?: { prefix?: string }): Promise<void>;
}

export type RequestCard = Part & RequestActions;

/** A request card by its title, in the Approvals inbox or inline in a conversation (scope: the page or the timeline). */
export function requestCard(scope: Page | Locator, title: string | RegExp): RequestCard {
  const card = on(scope as Locator).region(title);
  const withComment = async (button: Part, comment?: string) => {
    if (comment !== undefined) await actions.commentField.fill(comment);
    await button.click();
  };
  const always = async (button: Part, prefix?: string) => {
    if (prefix !== undefined) await actions.prefixField.fill(prefix);
    await button.click();
  };
  const approveButton = card.button('Approve', { exact: true });
  const rejectButton = card.button('Reject', { exact: true });
  const alwaysAllowButton = card.button('Always allow', { exact: true });
  const alwaysDenyButton = card.button('Always deny', { exact: true });
  const actions: RequestActions = {
    approveButton,
    rejectButton,
    alwaysAllowButton,
    alwaysDenyButton,
    prefixField: card.textbox('Command prefix'),
    commentField: card.textbox('Comment (optional)'),
    answerField: card.textbox('Your answer'),
    state: (label) => on(card.find('.request-head')).text(label, { exact: true }),
    approve: (opts = {}) => withComment(approveButton, opts.comment),
    reject: (opts = {}) => withComment(rejectButton, opts.comment),
    choose: (option) => card.button(option).click(),
    alwaysAllow: (opts = {}) => always(alwaysAllowButton, opts.prefix),
    alwaysDeny: (opts = {}) => always(alwaysDenyButton, opts.prefix),
  };
  return Object.assign(card, actions);
}

/** What an agent in review mode wants to do, as its held card says: "kit wants to send a message". */
export type HeldWhat = 'send a message' | 'edit a message' | 'create a task channel';

export interface HeldActions {
  /** Sends it as the agent wrote it. */
  send(): Promise<void>;
  /** "Edit & send": replaces the text (or the task title) and sends the edited version. */
  editAndSend(text: string): Promise<void>;
  discard(): Promise<void>;
}

export type HeldCard = Part & HeldActions;

/** The held card of an agent in review mode (Approvals inbox). */
export function heldCard(page: Page, agent: string, what: HeldWhat = 'send a message'): HeldCard {
  const card = on(page).region(`${agent} wants to ${what}`);
  const actions: HeldActions = {
    send: () => card.button('Send', { exact: true }).click(),
    editAndSend: async (text) => {
      await card.button('Edit & send').click();
      await card.textbox(/^Edit /).fill(text);
      await card.button('Send edited').click();
    },
    discard: () => card.button('Discard').click(),
  };
  return Object.assign(card, actions);
}

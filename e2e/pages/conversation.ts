// A conversation: its timeline of messages (with what the owner does on one: react, reply in a thread, pin, hide,
// edit, recall) and the composer (type, send, attach, send as file).
import type { Locator, Page } from 'playwright-core';
import { on, type Part } from './on';

/** The timeline of the open conversation. */
export const timeline = (page: Page): Part => on(page).log('Messages');

/** The composer's Send button. */
export const sendButton = (scope: Page | Locator): Part => on(scope as Locator).button('Send', { exact: true });

/** The composer's text box ("Message alice" for a conversation with alice, "Message Launch crew" for a group). */
export const messageBox = (page: Page, conversation: string): Part => on(page).textbox(`Message ${conversation}`);

/** The composer of the open conversation (named as its text box is: the agent's name or the group's title). */
export interface Composer {
  /** The composer as a whole (where files are dropped). */
  readonly area: Part;
  readonly box: Part;
  readonly sendButton: Part;
  readonly sendAsFileButton: Part;
  /** The list of files waiting in the composer until Send. */
  readonly attachedFiles: Part;
  /** Types text key by key at the caret (the @mention menu and the draft react as to a person typing). */
  type(text: string): Promise<void>;
  /** Types "@" and the start of an agent's name, then picks the agent from the mention menu. */
  mention(agent: string): Promise<void>;
  /** Sends what is typed with Enter. */
  submit(): Promise<void>;
  /** Fills the text and sends it with Enter. */
  send(text: string): Promise<void>;
  /** Attaches files with the "Attach files" button and the file picker (nothing is sent yet). */
  attach(...files: Array<{ name: string; mimeType: string; buffer: Buffer }>): Promise<void>;
}

export function composer(page: Page, conversation: string): Composer {
  const box = messageBox(page, conversation);
  return {
    area: on(on(page).find('.composer').first()),
    box,
    sendButton: sendButton(page),
    sendAsFileButton: on(page).button('Send as file'),
    attachedFiles: on(page).list('Attached files'),
    type: (text) => box.pressSequentially(text),
    mention: async (agent) => {
      await box.pressSequentially(`@${agent.slice(0, 3)}`);
      await on(page)
        .option(new RegExp(`@${agent}\\b`))
        .click();
    },
    submit: () => box.press('Enter'),
    send: async (text) => {
      await box.fill(text);
      await box.press('Enter');
    },
    attach: async (...files) => {
      const chooser = page.waitForEvent('filechooser', { timeout: 10_000 });
      await on(page).button('Attach files').click();
      await (await chooser).setFiles(files);
    },
  };
}

/** The conversation menu's item (after "Conversation menu" opened it): "Archive", "Unarchive", "Export…". */
export async function conversationMenuItem(page: Page, item: string): Promise<Part> {
  await on(page).button('Conversation menu').click();
  return on(page).menuitem(item);
}

/** Picks an item of the conversation menu ("Archive", "Unarchive", "Export…"). */
export async function fromConversationMenu(page: Page, item: string): Promise<void> {
  await (await conversationMenuItem(page, item)).click();
}

/** What the owner does on one message of the timeline (each first shows its actions by hovering it). */
export interface MessageActions {
  /** Its "Message actions" toolbar (shown on hover, or on a tap on a touch screen). */
  readonly actionBar: Part;
  /** Adds a reaction from the picker ("🎉"). */
  react(emoji: string): Promise<void>;
  /** Quotes it in the composer (a reply in the conversation; the composer sends it). */
  reply(): Promise<void>;
  /** Opens its thread; returns the thread panel. */
  openThread(): Promise<Part>;
  pin(): Promise<void>;
  hide(): Promise<void>;
  /** Edits the owner's own message and saves it with Enter. */
  edit(text: string): Promise<void>;
  /** Recalls the owner's own message for everyone (the confirmation included). */
  recall(): Promise<void>;
}

export type Message = Part & MessageActions;

function withActions(msg: Part, page: Page): Message {
  const act = async (name: string) => {
    await msg.hover();
    await msg.toolbar('Message actions').button(name, { exact: true }).click();
  };
  const actions: MessageActions = {
    actionBar: msg.toolbar('Message actions'),
    react: async (emoji) => {
      await act('Add reaction');
      await msg.button(`React ${emoji}`).click();
    },
    reply: () => act('Reply'),
    openThread: async () => {
      await act('Reply in thread');
      return threadPanel(page);
    },
    pin: () => act('Pin'),
    hide: () => act('Hide'),
    edit: async (text) => {
      await act('Edit');
      const box = msg.textbox('Edit message');
      await box.fill(text);
      await box.press('Enter');
    },
    recall: async () => {
      await act('Recall');
      await on(page).dialog('Recall this message?').button('Recall for everyone').click();
    },
  };
  return Object.assign(msg, actions);
}

/** A message in the timeline by its id. */
export const messageById = (page: Page, msgId: string): Message => withActions(timeline(page).find(`[data-msg-id="${msgId}"]`), page);

/** A message in the timeline by (part of) its text; from names its sender ("alice", "owner") when given. */
export const message = (page: Page, text: string, from?: string): Message =>
  withActions(
    on(
      timeline(page)
        .article(from === undefined ? undefined : `Message from ${from}`)
        .filter({ hasText: text }),
    ),
    page,
  );

/** The thread panel beside the timeline. */
export const threadPanel = (page: Page): Part => on(page).role('complementary', 'Thread');

/** Replies in the open thread panel (types and sends with Enter). */
export async function replyInThread(page: Page, text: string): Promise<void> {
  const box = threadPanel(page).textbox('Reply in thread');
  await box.fill(text);
  await box.press('Enter');
}

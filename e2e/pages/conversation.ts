// A conversation: its timeline of messages and the composer.
import type { Locator, Page } from 'playwright-core';
import { on, type Part } from './on';

/** The timeline of the open conversation. */
export const timeline = (page: Page): Part => on(page).log('Messages');

/** A message in the timeline by its id. */
export const messageById = (scope: Page | Locator, msgId: string): Part => on(scope as Locator).find(`[data-msg-id="${msgId}"]`);

/** The composer's Send button. */
export const sendButton = (scope: Page | Locator): Part => on(scope as Locator).button('Send', { exact: true });

/** The composer's text box for a conversation with one agent ("Message alice"). */
export const messageBox = (page: Page, agent: string): Part => on(page).textbox(`Message ${agent}`);

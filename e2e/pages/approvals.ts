// The Approvals screen: what waits for the owner's decision, and the empty state when nothing does.
import type { Page } from 'playwright-core';
import { screenTitle } from './app';
import { on, type Part } from './on';

export const approvalsTitle = (page: Page): Part => screenTitle(page, 'Approvals');

/** The empty state: "Nothing is waiting for you." */
export const nothingWaiting = (page: Page): Part => on(page).text('Nothing is waiting for you.');

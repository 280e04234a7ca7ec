// The Agents screen: the list of agents, one agent's detail pane, and the "Add an agent" dialog.
import type { Page } from 'playwright-core';
import { openPage, screenTitle } from './app';
import { on, type Part } from './on';

/** The list of agents. */
export const agentList = (page: Page): Part => on(page).list('Agents');

/** Opens the Agents page with one agent's detail pane (its row clicked in the list); returns the pane. */
export async function openAgent(page: Page, name: string): Promise<Part> {
  if ((await screenTitle(page, 'Agents').count()) === 0) await openPage(page, 'Agents');
  await agentList(page).item(`Agent ${name}`).link().click();
  const pane = on(page).region(`Agent ${name} details`);
  await pane.waitFor();
  return pane;
}

/** The "Add an agent" dialog (after the owner clicked "Add agent"). */
export const addAgentDialog = (page: Page): Part => on(page).dialog('Add an agent');

// The Agents screen: the list of agents, one agent's detail pane, the "Add an agent" dialog with the one-time key it
// shows, and the dialogs an agent's buttons open (Connect, Keys, Wake); and the Fleet screen's card of an agent
// (pause / resume it, its wake run) beside the "Pause all agents" switch.
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

/** The "Add an agent" dialog (after the owner clicked "Add agent"), with its Name field and its own "Add agent". */
export interface AddAgentParts {
  readonly nameField: Part;
  readonly addButton: Part;
}

export type AddAgentDialog = Part & AddAgentParts;

export function addAgentDialog(page: Page): AddAgentDialog {
  const dialog = on(page).dialog('Add an agent');
  return Object.assign(dialog, { nameField: dialog.field('Name'), addButton: dialog.button('Add agent') });
}

/** The Agents page's "Add agent" button. */
export const addAgentButton = (page: Page): Part => on(page).button('Add agent');

/** Clicks "Add agent" on the Agents page and returns its dialog. */
export async function openAddAgent(page: Page): Promise<AddAgentDialog> {
  await addAgentButton(page).click();
  return addAgentDialog(page);
}

/** The dialog that shows an agent's new key once ("Key for carol"). */
export const keyDialog = (page: Page, name: string): Part => on(page).dialog(`Key for ${name}`);

/** The one-time key and its export line, as the key dialog shows them. */
export interface ShownKey {
  key: string;
  exportLine: string;
}

/** Reads the key dialog's one-time key and its export line. */
export async function readShownKey(page: Page, name: string): Promise<ShownKey> {
  const dlg = keyDialog(page, name);
  return {
    key: ((await dlg.field('Agent key').textContent()) ?? '').trim(),
    exportLine: ((await dlg.field('Export line', { exact: true }).textContent()) ?? '').trim(),
  };
}

/** Closes the key dialog ("I have copied it"). */
export const closeKeyDialog = (page: Page, name: string): Promise<void> => keyDialog(page, name).button('I have copied it').click();

/**
 * Adds an agent through the dialog: opens it, fills Name (and Description when given), clicks "Add agent". The key
 * dialog is then open: read it with readShownKey, close it with closeKeyDialog.
 */
export async function addAgent(page: Page, name: string, opts: { description?: string } = {}): Promise<void> {
  const add = await openAddAgent(page);
  await add.nameField.fill(name);
  if (opts.description !== undefined) await add.field('Description').fill(opts.description);
  await add.addButton.click();
}

/** One of an agent's dialogs: "Connect kit", "Keys of kit", "Wake kit" (the button names it: "Wake runs of kit"). */
export type AgentDialog = 'Connect' | 'Keys' | 'Wake';

const DIALOG_BUTTON: Record<AgentDialog, (name: string) => string> = {
  Connect: (n) => `Connect ${n}`,
  Keys: (n) => `Keys of ${n}`,
  Wake: (n) => `Wake runs of ${n}`,
};
const DIALOG_TITLE: Record<AgentDialog, (name: string) => string> = {
  Connect: (n) => `Connect ${n}`,
  Keys: (n) => `Keys of ${n}`,
  Wake: (n) => `Wake ${n}`,
};

/** An agent's Connect / Keys / Wake dialog (open or not). */
export const agentDialog = (page: Page, which: AgentDialog, name: string): Part => on(page).dialog(DIALOG_TITLE[which](name));

/** Opens an agent's Connect / Keys / Wake dialog with its button on the open screen; returns the dialog. */
export async function openAgentDialog(page: Page, which: AgentDialog, name: string): Promise<Part> {
  await on(page).button(DIALOG_BUTTON[which](name)).click();
  return agentDialog(page, which, name);
}

/** A connection snippet's text in a Connect or Key dialog ("Claude Code", "Codex CLI", "perch call", …). */
export const snippetText = (dialog: Part, label: string): Promise<string> => dialog.region(`${label} snippet`).find('pre').innerText();

/** An agent's card on the Fleet screen (or its row on the Agents page: both are the item "Agent kit"). */
export interface AgentCardParts {
  readonly pauseButton: Part;
  readonly resumeButton: Part;
  /** Its review-mode switch (aria-pressed tells whether its sends are held for the owner). */
  readonly reviewButton: Part;
  /** Its harness session line on the Fleet card ("Claude Code: working", the session's directory). */
  readonly harnessSession: Part;
  /** Its wake run on the Fleet screen while one runs ("reviewer wake run"), with its Stop button. */
  readonly wakeRun: Part;
  /** Its wake run while it waits for a free slot ("second queued wake run"), with Start now and Cancel. */
  readonly queuedRun: Part;
}

export type AgentCard = Part & AgentCardParts;

export function fleetCard(page: Page, name: string): AgentCard {
  const card = on(page).item(`Agent ${name}`);
  return Object.assign(card, {
    pauseButton: card.button(`Pause ${name}`),
    resumeButton: card.button(`Resume ${name}`),
    reviewButton: card.button(`Review mode for ${name}`),
    harnessSession: card.field('Harness session'),
    wakeRun: on(page).field(`${name} wake run`),
    queuedRun: on(page).field(`${name} queued wake run`),
  });
}

/** The switch that pauses every agent at once, and the one that resumes them. */
export const pauseAllButton = (page: Page): Part => on(page).button('Pause all agents');
export const resumeAllButton = (page: Page): Part => on(page).button('Resume all agents');

/** The Connect dialog's list of where the agent is connected (one item per recorded connection, with its disconnect). */
export const connectedWhere = (dialog: Part, name: string): Part => dialog.region(`Where ${name} is connected`);

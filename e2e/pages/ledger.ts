// The Ledger page as the owner sees it: today's spend per agent, the 14-day chart, the filters and the tool calls, and
// Perch's own events with their filters.
import type { Page } from 'playwright-core';
import { on, type Part } from './on';

/** The ledger's pieces by their sections (`region`: within the Ledger page, or an agent's Ledger tab, agentLedger). */
const pieces = (region: (name: string) => Part) => ({
  spendToday: (agent: string): Part => on(region('Spend today')).item(`${agent} spent today`),
  chart: (): Part => on(region('Last 14 days')).img(/Spend per day/),
  call: (callId: string): Part => on(region('Tool calls')).item(`Call ${callId}`),
  /** A turn of a session (its id, or "not named"), its header (the turn's tokens and cost) and a call within it. */
  turnHeader: (turn: string): Part => on(on(region('Tool calls')).region(`Turn ${turn}`)).heading(),
  callInTurn: (turn: string, callId: string): Part => on(on(region('Tool calls')).region(`Turn ${turn}`)).item(`Call ${callId}`),
  failedOnly: (): Part => on(region('Tool calls')).checkbox('Failed only'),
  decidedBy: (): Part => on(region('Tool calls')).combobox(/^Decided by/),
  search: (): Part => on(region('Tool calls')).role('searchbox', /^Search/),
  agentFilter: (): Part => on(region('Tool calls')).combobox(/^Agent/),
});

/** An agent's Ledger tab on the Agents page (its tab, then its panel), with the link to the Ledger page filtered to it. */
export const agentLedger = (page: Page, agent: string) => {
  const panel = on(page).role('tabpanel', `${agent}'s ledger`);
  return {
    tab: (): Part => on(on(page).region(`Agent ${agent} details`)).tab('Ledger'),
    panel,
    ...pieces((name) => on(panel).region(name)),
    openInLedger: (): Part => on(panel).link(`Open ${agent} in the Ledger`),
  };
};

export const ledger = (page: Page) => ({
  ...pieces((name) => on(page).region(name)),
  /** The way back from one call (an approval card's link) to all of them. */
  showAll: (): Part => on(on(page).region('Tool calls')).link('Show all calls'),
  /** One of Perch's own events (a wake run, a pause, a rule), by its agent and words: "kit: paused by owner: lunch". */
  event: (name: string | RegExp): Part => on(on(page).region("Perch's events")).item(name),
  /** Which events show: all, Wake runs, Pauses and resumes, Standing rules, The ledger itself. */
  eventsShow: (): Part => on(on(page).region("Perch's events")).combobox(/^Show/),
  eventsAgent: (): Part => on(on(page).region("Perch's events")).combobox(/^Agent/),
  /** The events shown, top to bottom, by their names. */
  eventNames: (): Promise<string[]> =>
    on(on(page).region("Perch's events"))
      .item()
      .evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? '')),
});

/** An approval card's link to its tool call's outcome ("ran 2.3 s, exit 0"), within the card. */
export const callOutcomeLink = (card: Part, outcome: string | RegExp): Part =>
  on(card).link(typeof outcome === 'string' ? `The call's outcome: ${outcome}` : outcome);

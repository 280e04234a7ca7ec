// The app's frame as the owner sees it: the sidebar ("Perch" navigation) with its pages and conversations, and
// Settings with its sections. Page objects in the manner of Actual Budget's e2e/page-models: specs say what the
// owner does ("open Settings → Phone"), the selectors live here.
import type { Page } from 'playwright-core';
import { on, type Part } from './on';

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export type PageName = 'Approvals' | 'Fleet' | 'Ledger' | 'Agents';

/** The sidebar: the "Perch" navigation. */
export const sidebar = (page: Page): Part => on(page).nav('Perch');

/** The open screen's title (its level-1 heading); any screen's when no name is given. */
export const screenTitle = (page: Page, name?: string | RegExp, opts: { exact?: boolean } = {}): Part =>
  on(page).heading(name, { level: 1, ...opts });

/** The sidebar link or button whose label starts with name (links since URLs drive the view). */
function sidebarEntry(page: Page, name: RegExp): Part {
  const nav = sidebar(page);
  return on(nav.link(name).or(nav.button(name)).first());
}

/** Opens a conversation from the sidebar by its title and waits for its header. */
export async function openConversation(page: Page, title: string): Promise<void> {
  await sidebarEntry(page, new RegExp(`^${escapeRe(title)}(\\s|$)`)).click();
  await screenTitle(page, title, { exact: true }).waitFor();
}

/** Opens Approvals, Fleet or Agents from the sidebar. */
export async function openPage(page: Page, name: PageName): Promise<void> {
  await sidebarEntry(page, new RegExp(`^${name}`)).click();
  await screenTitle(page, name).waitFor();
}

/** The Settings link of the sidebar. */
export const settingsLink = (page: Page): Part => sidebar(page).link(/^Settings/);

/** Settings' own navigation of its sections. */
export const settingsSections = (page: Page): Part => on(page).nav('Settings');

/** Opens Settings from the sidebar, then one of its sections (Phone, Containers, …). */
export async function openSettings(page: Page, section: string): Promise<void> {
  await settingsLink(page).click();
  await settingsSections(page).link(section).click();
}

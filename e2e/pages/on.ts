// The words specs use for what the owner sees: `on(page).button('Approve')`, `on(dialog).field('Name')`,
// `on(page).heading('Approvals', { level: 1 })`. Each returns a Playwright Locator that also has these words, so a
// spec chains them (`on(page).dialog('Add an agent').button('Add agent')`). Only this file and the page objects
// beside it (e2e/pages/) name Playwright's locator calls; test/checks/e2e-locators.test.ts keeps specs under the cap.
import type { Locator, Page } from 'playwright-core';

type RoleOptions = Omit<NonNullable<Parameters<Page['getByRole']>[1]>, 'name'>;
type TextOptions = NonNullable<Parameters<Page['getByText']>[1]>;
type LocatorOptions = NonNullable<Parameters<Page['locator']>[1]>;
type Name = string | RegExp | undefined;
type Role = Parameters<Page['getByRole']>[0];

/** The owner's words for a part of the screen, as methods on a Locator. */
export interface Words {
  /** Any ARIA role not given its own word below. */
  role(role: Role, name?: Name, opts?: RoleOptions): Part;
  button(name?: Name, opts?: RoleOptions): Part;
  link(name?: Name, opts?: RoleOptions): Part;
  heading(name?: Name, opts?: RoleOptions): Part;
  region(name?: Name, opts?: RoleOptions): Part;
  dialog(name?: Name, opts?: RoleOptions): Part;
  nav(name?: Name, opts?: RoleOptions): Part;
  textbox(name?: Name, opts?: RoleOptions): Part;
  checkbox(name?: Name, opts?: RoleOptions): Part;
  radio(name?: Name, opts?: RoleOptions): Part;
  combobox(name?: Name, opts?: RoleOptions): Part;
  option(name?: Name, opts?: RoleOptions): Part;
  list(name?: Name, opts?: RoleOptions): Part;
  item(name?: Name, opts?: RoleOptions): Part;
  article(name?: Name, opts?: RoleOptions): Part;
  alert(name?: Name, opts?: RoleOptions): Part;
  status(name?: Name, opts?: RoleOptions): Part;
  note(name?: Name, opts?: RoleOptions): Part;
  form(name?: Name, opts?: RoleOptions): Part;
  group(name?: Name, opts?: RoleOptions): Part;
  toolbar(name?: Name, opts?: RoleOptions): Part;
  menu(name?: Name, opts?: RoleOptions): Part;
  menuitem(name?: Name, opts?: RoleOptions): Part;
  tab(name?: Name, opts?: RoleOptions): Part;
  img(name?: Name, opts?: RoleOptions): Part;
  log(name?: Name, opts?: RoleOptions): Part;
  feed(name?: Name, opts?: RoleOptions): Part;
  /** Text shown on screen. */
  text(text: string | RegExp, opts?: TextOptions): Part;
  /** A form field (or anything labelled) by its label. */
  field(label: string | RegExp, opts?: TextOptions): Part;
  placeholder(text: string | RegExp, opts?: TextOptions): Part;
  titled(title: string | RegExp, opts?: TextOptions): Part;
  /** A CSS selector, for what has no role or label (markup the spec checks on purpose). */
  find(selector: string, opts?: LocatorOptions): Part;
}

export type Part = Locator & Words;

const ROLE_WORDS = {
  button: 'button',
  link: 'link',
  heading: 'heading',
  region: 'region',
  dialog: 'dialog',
  nav: 'navigation',
  textbox: 'textbox',
  checkbox: 'checkbox',
  radio: 'radio',
  combobox: 'combobox',
  option: 'option',
  list: 'list',
  item: 'listitem',
  article: 'article',
  alert: 'alert',
  status: 'status',
  note: 'note',
  form: 'form',
  group: 'group',
  toolbar: 'toolbar',
  menu: 'menu',
  menuitem: 'menuitem',
  tab: 'tab',
  img: 'img',
  log: 'log',
  feed: 'feed',
} as const satisfies Record<string, Role>;

function words(scope: Page | Locator): Words {
  const byRole = (role: Role, name: Name, opts?: RoleOptions) => on(scope.getByRole(role, name === undefined ? opts : { ...opts, name }));
  const w = {
    role: byRole,
    text: (t: string | RegExp, o?: TextOptions) => on(scope.getByText(t, o)),
    field: (t: string | RegExp, o?: TextOptions) => on(scope.getByLabel(t, o)),
    placeholder: (t: string | RegExp, o?: TextOptions) => on(scope.getByPlaceholder(t, o)),
    titled: (t: string | RegExp, o?: TextOptions) => on(scope.getByTitle(t, o)),
    find: (s: string, o?: LocatorOptions) => on(scope.locator(s, o)),
  } as Partial<Words> & Pick<Words, 'role'>;
  for (const [word, role] of Object.entries(ROLE_WORDS)) {
    (w as Record<string, unknown>)[word] = (name?: Name, opts?: RoleOptions) => byRole(role, name, opts);
  }
  return w as Words;
}

/** The owner's words on a whole page, or on a locator (adds the words to it and returns it). */
export function on(scope: Page): Words;
export function on(scope: Locator): Part;
export function on(scope: Page | Locator): Words | Part {
  if ('goto' in scope) return words(scope);
  if ('button' in scope) return scope as Part;
  return Object.assign(scope, words(scope));
}

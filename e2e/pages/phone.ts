// Pairing a phone: the laptop's "Pair a phone" form (Settings → Phone) with its QR link and the owner's confirmation,
// and the phone's own pairing screen (Pair, then the phrase both screens show).
import type { Page } from 'playwright-core';
import { on, type Part } from './on';

/** Settings → Phone's "Remote access" section (the public URL phones reach the hub at). */
export const remoteAccess = (laptop: Page): Part => on(laptop).region('Remote access');

/** The phone's "Turn on notifications" button. */
export const notificationsButton = (phone: Page): Part => on(phone).button('Turn on notifications');

/** The laptop's "Pair a phone" form. */
export const pairForm = (laptop: Page): Part => on(laptop).form('Pair a phone');

/** The one-time pairing link the laptop shows. */
export const pairingLink = (laptop: Page): Part => on(laptop).field('Pairing link', { exact: true });

/** The pairing phrase (the laptop and the phone both show it). */
export const pairingPhrase = (screen: Page): Part => on(screen).field('Pairing phrase');

/** The phone's Pair button. */
export const pairButton = (phone: Page): Part => on(phone).button('Pair');

/** The pairing link the laptop shows, and its one-time code (what follows "#"). */
export interface PairingLink {
  link: string;
  code: string;
}

/** Reads the laptop's pairing link and its code. */
async function readPairingLink(laptop: Page): Promise<PairingLink> {
  const link = (await pairingLink(laptop).innerText()).trim();
  return { link, code: link.slice(link.indexOf('#') + 1) };
}

/** On the laptop: names the phone (when a name is given), clicks "Show the QR code"; returns the link and its code. */
export async function showPairingQr(laptop: Page, opts: { name?: string } = {}): Promise<PairingLink> {
  const form = pairForm(laptop);
  if (opts.name !== undefined) await form.field('Name of the phone').fill(opts.name);
  await form.button('Show the QR code').click();
  return readPairingLink(laptop);
}

/** On the phone (at the pairing link): taps Pair and returns the phrase it then shows. */
export async function pairOnPhone(phone: Page): Promise<string> {
  await pairButton(phone).click();
  return ((await pairingPhrase(phone).textContent()) ?? '').trim();
}

/** On the laptop: the owner confirms the phrase matches ("It matches — pair"). */
export const confirmPairing = (laptop: Page): Promise<void> => on(laptop).button('It matches — pair').click();

// Pairing a phone: the laptop's "Pair a phone" form (Settings → Phone) and the phone's own pairing screen.
import type { Page } from 'playwright-core';
import { on, type Part } from './on';

/** The laptop's "Pair a phone" form. */
export const pairForm = (laptop: Page): Part => on(laptop).form('Pair a phone');

/** The one-time pairing link the laptop shows. */
export const pairingLink = (laptop: Page): Part => on(laptop).field('Pairing link', { exact: true });

/** The pairing phrase (the laptop and the phone both show it). */
export const pairingPhrase = (screen: Page): Part => on(screen).field('Pairing phrase');

/** The phone's Pair button. */
export const pairButton = (phone: Page): Part => on(phone).button('Pair');

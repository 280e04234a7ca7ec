// The price table that turns a harness's token counts into dollars when the harness reports none (Codex, GitHub
// Copilot CLI, Gemini CLI). Shipped with
// the providers' published list prices (USD per million tokens) for the models named here, as of this release; the owner
// overrides or adds a model with `perch ledger prices set` (model_prices). A model in neither is "price unknown": its
// tokens are kept and its cost is not guessed. Claude Code reports its own cost_usd, which the ledger keeps as is.

export interface ModelPrice {
  input_per_mtok: number;
  cached_input_per_mtok: number;
  output_per_mtok: number;
}

/** Published list prices (standard tier, USD per 1M tokens). */
export const SHIPPED_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'gpt-5': { input_per_mtok: 1.25, cached_input_per_mtok: 0.125, output_per_mtok: 10 },
  'gpt-5-codex': { input_per_mtok: 1.25, cached_input_per_mtok: 0.125, output_per_mtok: 10 },
  'gpt-5-mini': { input_per_mtok: 0.25, cached_input_per_mtok: 0.025, output_per_mtok: 2 },
  'gpt-5-nano': { input_per_mtok: 0.05, cached_input_per_mtok: 0.005, output_per_mtok: 0.4 },
  'gpt-4.1': { input_per_mtok: 2, cached_input_per_mtok: 0.5, output_per_mtok: 8 },
  // Gemini API (paid tier; 2.5 Pro: prompts up to 200k tokens, a longer prompt costs more than this says). Thinking
  // tokens are billed as output.
  'gemini-2.5-pro': { input_per_mtok: 1.25, cached_input_per_mtok: 0.125, output_per_mtok: 10 },
  'gemini-2.5-flash': { input_per_mtok: 0.3, cached_input_per_mtok: 0.03, output_per_mtok: 2.5 },
  'gemini-2.5-flash-lite': { input_per_mtok: 0.1, cached_input_per_mtok: 0.01, output_per_mtok: 0.4 },
});

/** A model name as the table keys it: lower case, a trailing date snapshot (-2025-08-07) taken off. */
export function priceKey(model: string): string {
  return model
    .trim()
    .toLowerCase()
    .replace(/-\d{4}-\d{2}-\d{2}$/, '');
}

/** Dollars for tokens at a price (input without the cached part; cached input; output including reasoning). */
export function costAt(p: ModelPrice, t: { input: number; output: number; cache_read: number }): number {
  return (t.input * p.input_per_mtok + t.cache_read * p.cached_input_per_mtok + t.output * p.output_per_mtok) / 1e6;
}

/** A price the owner sets: each figure a finite number from 0 to 10,000 dollars per million tokens, or why not. */
export function checkPrice(p: Record<string, unknown>): ModelPrice | string {
  const out: Record<string, number> = {};
  for (const k of ['input_per_mtok', 'cached_input_per_mtok', 'output_per_mtok'] as const) {
    const v = p[k];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 10_000)
      return `${k} must be a number of dollars per million tokens from 0 to 10000`;
    out[k] = v;
  }
  return out as unknown as ModelPrice;
}

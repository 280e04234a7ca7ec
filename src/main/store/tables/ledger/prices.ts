// The owner's prices per model (shared/ledger/prices.ts holds the shipped ones).
import { sql, type Db } from '../../db/db';
import type { ModelPrice } from '../../../../shared/ledger/prices';

export type PriceRow = ModelPrice & { model: string; updated_at: number };

export function ownerPrices(db: Db): PriceRow[] {
  return sql<PriceRow>(db, 'SELECT * FROM model_prices ORDER BY model').all();
}

export function ownerPrice(db: Db, model: string): PriceRow | undefined {
  return sql<PriceRow>(db, 'SELECT * FROM model_prices WHERE model = ?').get(model);
}

export function putPrice(db: Db, row: PriceRow): void {
  sql(
    db,
    `INSERT INTO model_prices (model, input_per_mtok, cached_input_per_mtok, output_per_mtok, updated_at)
       VALUES (@model, @input_per_mtok, @cached_input_per_mtok, @output_per_mtok, @updated_at)
       ON CONFLICT (model) DO UPDATE SET input_per_mtok = excluded.input_per_mtok,
         cached_input_per_mtok = excluded.cached_input_per_mtok, output_per_mtok = excluded.output_per_mtok,
         updated_at = excluded.updated_at`,
  ).run(row);
}

export function dropPrice(db: Db, model: string): boolean {
  return sql(db, 'DELETE FROM model_prices WHERE model = ?').run(model).changes === 1;
}

import { Model } from 'objection';
import type { Translations } from '@app/contracts';
import { BaseModel } from '../database/base.model.ts';

export class Provider extends BaseModel {
  static override tableName = 'providers';
  /** Texts per language (contracts/src/translations.ts); JSON text in the column, parsed on read. */
  static override jsonAttributes = ['translations'];
  translations?: Translations | null;
  name!: string;
  code!: string;
  logo_path!: string | null;
  status!: 'active' | 'inactive';
  sort_order!: number;
  /** JSON text of digit strings, e.g. ["61","77"]. */
  phone_prefixes!: string | null;
  adapter_key!: string;
  external_operator_id!: string | null;
  deleted_at?: string | null;
}

export class Category extends BaseModel {
  static override tableName = 'categories';
  /** Texts per language (contracts/src/translations.ts); JSON text in the column, parsed on read. */
  static override jsonAttributes = ['translations'];
  translations?: Translations | null;
  provider_id!: number;
  name!: string;
  description!: string | null;
  status!: 'active' | 'inactive';
  sort_order!: number;
  deleted_at?: string | null;
  provider?: Provider | null;

  static override get relationMappings() {
    return { provider: { relation: Model.BelongsToOneRelation, modelClass: Provider, join: { from: 'categories.provider_id', to: 'providers.id' } } };
  }
}

export class Bundle extends BaseModel {
  static override tableName = 'bundles';
  /** Texts per language (contracts/src/translations.ts); JSON text in the column, parsed on read. */
  static override jsonAttributes = ['translations'];
  translations?: Translations | null;
  category_id!: number;
  name!: string;
  data_volume_mb!: number | null;
  validity_days!: number;
  cost_price!: number;
  selling_price!: number;
  operator_product_code!: string | null;
  status!: 'active' | 'inactive';
  sort_order!: number;
  deleted_at?: string | null;
  category?: Category | null;

  static override get relationMappings() {
    return { category: { relation: Model.BelongsToOneRelation, modelClass: Category, join: { from: 'bundles.category_id', to: 'categories.id' } } };
  }
}

/** How many live children each parent has, in one grouped query (lists must not query per row). */
export async function childCounts(
  db: import('knex').Knex | import('knex').Knex.Transaction,
  table: string,
  column: string,
  ids: number[],
): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  if (!ids.length) return counts;
  const rows: { parent: number; n: number | string }[] = await db(table)
    .whereIn(column, ids)
    .whereNull('deleted_at')
    .groupBy(column)
    .select(`${column} as parent`)
    .count({ n: '*' });
  for (const r of rows) counts.set(r.parent, Number(r.n));
  return counts;
}

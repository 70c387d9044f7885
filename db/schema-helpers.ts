import type { Knex } from 'knex';

/**
 * Column shapes every table shares, so that migrations stay portable between SQLite and
 * MySQL/MariaDB without branching on the client (docs/data-model.md, "Portable migrations").
 * - ids are unsigned ints (`increments`), so every foreign key is `integer().unsigned()`:
 *   an `int` column cannot reference an `int unsigned` one on MySQL.
 * - times are DATETIME(3) written as UTC strings by the model layer.
 * - money is BIGINT minor units (cents), never float or decimal.
 */
export function timestamps(t: Knex.CreateTableBuilder): void {
  t.datetime('created_at', { precision: 3 }).notNullable();
  t.datetime('updated_at', { precision: 3 }).notNullable();
}

export function softDeletes(t: Knex.CreateTableBuilder): void {
  t.datetime('deleted_at', { precision: 3 }).nullable().index();
}

export function foreignId(
  t: Knex.CreateTableBuilder,
  column: string,
  table: string,
  opts: { nullable?: boolean; onDelete?: 'CASCADE' | 'SET NULL' | 'RESTRICT' } = {},
): Knex.ColumnBuilder {
  const col = t.integer(column).unsigned();
  if (opts.nullable) col.nullable();
  else col.notNullable();
  t.foreign(column)
    .references('id')
    .inTable(table)
    .onDelete(opts.onDelete ?? 'RESTRICT');
  return col;
}

export function money(t: Knex.CreateTableBuilder, column: string): Knex.ColumnBuilder {
  return t.bigInteger(column).notNullable().defaultTo(0);
}

export function status(t: Knex.CreateTableBuilder): Knex.ColumnBuilder {
  return t.string('status', 16).notNullable().defaultTo('active');
}

import { Model, type Pojo, type QueryContext } from 'objection';
import { fromDbTime, toDbTime } from './time.ts';
import { encodeId } from '../http/ids.ts';
import { currentTransaction } from './unit-of-work.ts';

/**
 * Shared model behaviour: timestamps written as UTC strings, read back as ISO 8601, booleans
 * as real booleans (SQLite gives 0/1), and an h_id on every record that has an id.
 */
export class BaseModel extends Model {
  id!: number;
  created_at?: string;
  updated_at?: string;

  static timestamps = true;

  /**
   * Inside a unit of work, a query built without an explicit transaction still runs on it
   * (Objection asks the model class for its knex): a forgotten `trx` cannot deadlock SQLite's
   * one-connection pool or read outside the transaction.
   */
  static override knex(...args: unknown[]): any {
    if (args.length) return (Model.knex as (...a: unknown[]) => unknown).apply(this, args);
    return currentTransaction() ?? (Model.knex as () => unknown).call(this);
  }
  static dateColumns: string[] = ['created_at', 'updated_at', 'deleted_at'];
  static booleanColumns: string[] = [];

  override $beforeInsert(_ctx: QueryContext): void {
    const cls = this.constructor as typeof BaseModel;
    if (!cls.timestamps) return;
    const now = toDbTime();
    this.created_at ??= now;
    this.updated_at ??= now;
  }

  override $beforeUpdate(_opt: unknown, _ctx: QueryContext): void {
    const cls = this.constructor as typeof BaseModel;
    if (cls.timestamps) this.updated_at = toDbTime();
  }

  override $parseDatabaseJson(json: Pojo): Pojo {
    const parsed = super.$parseDatabaseJson(json);
    const cls = this.constructor as typeof BaseModel;
    for (const col of cls.dateColumns) if (col in parsed) parsed[col] = fromDbTime(parsed[col]);
    for (const col of cls.booleanColumns) if (col in parsed && parsed[col] !== null) parsed[col] = Boolean(parsed[col]);
    return parsed;
  }

  override $formatDatabaseJson(json: Pojo): Pojo {
    const formatted = super.$formatDatabaseJson(json);
    const cls = this.constructor as typeof BaseModel;
    for (const col of cls.dateColumns) {
      const v = formatted[col];
      if (typeof v === 'string' && v.includes('T')) formatted[col] = toDbTime(new Date(v));
    }
    return formatted;
  }

  override $formatJson(json: Pojo): Pojo {
    const formatted = super.$formatJson(json);
    if (typeof formatted.id === 'number') formatted.h_id = encodeId(formatted.id);
    return formatted;
  }
}

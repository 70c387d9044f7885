import { Model, type ModelOptions, type QueryContext } from 'objection';
import { BaseModel } from '../database/base.model.ts';
import { User } from '../users/user.model.ts';
import { MANUAL_ONLY_TYPES, type AreaResponse, type ContactType, type PaymentGateway, type PaymentMethodType, type Translations } from '@app/contracts';

const dealerRelation = (table: string) => ({
  dealer: { relation: Model.BelongsToOneRelation, modelClass: User, join: { from: `${table}.dealer_id`, to: 'users.id' } },
});

export class PaymentMethod extends BaseModel {
  static override tableName = 'payment_methods';
  /** Texts per language (contracts/src/translations.ts); JSON text in the column, parsed on read. */
  static override jsonAttributes = ['translations'];
  translations?: Translations | null;
  dealer_id!: number | null;
  name!: string;
  type!: PaymentMethodType;
  gateway!: PaymentGateway;
  account_number!: string | null;
  instructions!: string | null;
  logo_path!: string | null;
  status!: 'active' | 'inactive';
  sort_order!: number;
  deleted_at?: string | null;
  dealer?: User | null;
  static override get relationMappings() {
    return dealerRelation('payment_methods');
  }
  /** Cash and bank are paid in person: whoever writes one (a copy of the company's, a new type), it is never charged. */
  override $beforeInsert(ctx: QueryContext): void {
    super.$beforeInsert(ctx);
    if (MANUAL_ONLY_TYPES.has(this.type)) this.gateway = 'manual';
  }
  override $beforeUpdate(opt: ModelOptions, ctx: QueryContext): void {
    super.$beforeUpdate(opt, ctx);
    if (this.type && MANUAL_ONLY_TYPES.has(this.type)) this.gateway = 'manual';
  }
}

export class Contact extends BaseModel {
  static override tableName = 'contacts';
  /** Texts per language (contracts/src/translations.ts); JSON text in the column, parsed on read. */
  static override jsonAttributes = ['translations'];
  translations?: Translations | null;
  dealer_id!: number | null;
  type!: ContactType;
  label!: string | null;
  value!: string;
  status!: 'active' | 'inactive';
  sort_order!: number;
  deleted_at?: string | null;
  dealer?: User | null;
  static override get relationMappings() {
    return dealerRelation('contacts');
  }
}

export class Area extends BaseModel {
  static override tableName = 'areas';
  parent_id!: number | null;
  name!: string;
  code!: string | null;
  type!: AreaResponse['type'];
  status!: 'active' | 'inactive';
  deleted_at?: string | null;
  parent?: Area | null;
  static override get relationMappings() {
    return { parent: { relation: Model.BelongsToOneRelation, modelClass: Area, join: { from: 'areas.parent_id', to: 'areas.id' } } };
  }
}

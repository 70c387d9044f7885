import { Model } from 'objection';
import { BaseModel } from '../database/base.model.ts';
import { User } from '../users/user.model.ts';
import type { AreaResponse, ContactType, PaymentGateway, PaymentMethodType, Translations } from '@app/contracts';

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

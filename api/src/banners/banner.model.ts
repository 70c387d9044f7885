import { Model } from 'objection';
import type { Translations } from '@app/contracts';
import { BaseModel } from '../database/base.model.ts';
import { User } from '../users/user.model.ts';

export class Banner extends BaseModel {
  static override tableName = 'banners';
  /** Texts per language (contracts/src/translations.ts); JSON text in the column, parsed on read. */
  static override jsonAttributes = ['translations'];
  translations?: Translations | null;
  dealer_id!: number | null;
  title!: string;
  image_path!: string;
  link_url!: string | null;
  sort_order!: number;
  status!: 'active' | 'inactive';
  deleted_at?: string | null;
  dealer?: User | null;

  static override get relationMappings() {
    return { dealer: { relation: Model.BelongsToOneRelation, modelClass: User, join: { from: 'banners.dealer_id', to: 'users.id' } } };
  }
}

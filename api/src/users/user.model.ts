import { Model } from 'objection';
import type { Translations } from '@app/contracts';
import { BaseModel } from '../database/base.model.ts';
import { Role } from '../roles/role.model.ts';

export class DealerDetails extends BaseModel {
  static override tableName = 'dealer_details';
  /** Texts per language (contracts/src/translations.ts); JSON text in the column, parsed on read. */
  static override jsonAttributes = ['translations'];
  translations?: Translations | null;
  user_id!: number;
  brand_color!: string;
  company_name?: string | null;
  description?: string | null;
  website?: string | null;
  contact_email?: string | null;
  contact_phone?: string | null;
  pricing_model!: 'cost' | 'profit';
  logo_path?: string | null;
}

export class User extends BaseModel {
  static override tableName = 'users';
  static override dateColumns = ['created_at', 'updated_at', 'deleted_at', 'email_verified_at', 'last_login_at', 'two_factor_enabled_at'];
  name!: string;
  email!: string;
  password!: string;
  phone?: string | null;
  address?: string | null;
  dealer_code?: string | null;
  user_type!: 'admin' | 'dealer';
  status!: 'active' | 'inactive';
  profile_image?: string | null;
  email_verified_at?: string | null;
  last_login_at?: string | null;
  /** Set with the confirmed TOTP secret (auth/two-factor.ts), in its transaction. */
  two_factor_enabled_at?: string | null;
  deleted_at?: string | null;
  roles?: Role[];
  dealer_details?: DealerDetails | null;

  static override get relationMappings() {
    return {
      roles: {
        relation: Model.ManyToManyRelation,
        modelClass: Role,
        join: {
          from: 'users.id',
          through: { from: 'user_roles.user_id', to: 'user_roles.role_id' },
          to: 'roles.id',
        },
      },
      dealer_details: {
        relation: Model.HasOneRelation,
        modelClass: DealerDetails,
        join: { from: 'users.id', to: 'dealer_details.user_id' },
      },
    };
  }
}

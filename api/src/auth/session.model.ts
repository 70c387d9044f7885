import { BaseModel } from '../database/base.model.ts';

/** A staff sign-in: the JWT's `sid` names one row; revoking or expiring the row ends the token. */
export class Session extends BaseModel {
  static override tableName = 'sessions';
  static override timestamps = false;
  static override dateColumns = ['created_at', 'locked_at', 'revoked_at', 'expires_at', 'last_seen_at'];
  static override booleanColumns = ['remember_me'];
  declare id: any; // uuid string, not a numeric id
  user_id!: number;
  remember_me!: boolean;
  ip?: string | null;
  user_agent?: string | null;
  locked_at?: string | null;
  revoked_at?: string | null;
  expires_at!: string;
  last_seen_at?: string | null;
}

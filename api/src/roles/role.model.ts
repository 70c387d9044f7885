import { Model } from 'objection';
import { BaseModel } from '../database/base.model.ts';

export class Permission extends BaseModel {
  static override tableName = 'permissions';
  name!: string;
  guard_name!: string;
  group!: string;
}

export class Role extends BaseModel {
  static override tableName = 'roles';
  static override booleanColumns = ['protected', 'requires_two_factor'];
  name!: string;
  guard_name!: string;
  description?: string | null;
  protected!: boolean;
  /** Its users sign in with a second factor and, until they enrol, may do nothing else. */
  requires_two_factor?: boolean;
  deleted_at?: string | null;
  permissions?: Permission[];
  users_count?: number;

  static override get relationMappings() {
    return {
      permissions: {
        relation: Model.ManyToManyRelation,
        modelClass: Permission,
        join: {
          from: 'roles.id',
          through: { from: 'role_permissions.role_id', to: 'role_permissions.permission_id' },
          to: 'permissions.id',
        },
      },
    };
  }
}

import type { TFunction } from 'i18next';
import type { Permission } from '@app/contracts';
import type { Language } from '../i18n/server-i18n.ts';
import type { User } from '../users/user.model.ts';
import type { Session } from '../auth/session.model.ts';

/** What the auth middleware learns about the caller, used by every permission check. */
export interface AuthContext {
  user: User;
  session: Session;
  permissions: Set<Permission>;
  isSuperAdmin: boolean;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: AuthContext;
      t: TFunction;
      lng: Language;
    }
  }
}

export {};

import type { SaleMode } from './sale-mode.ts';
import type { Knex } from 'knex';
import type { Request } from 'express';
import type { TFunction } from 'i18next';
import { ALL_PERMISSIONS, type Permission } from '@app/contracts';
import type { User } from '../users/user.model.ts';
import { translator, type Language } from '../i18n/server-i18n.ts';
import { rootKnex, unitOfWork } from '../database/unit-of-work.ts';

/**
 * Who is acting. Services decide with this, never with Express's `req`, so the console's
 * routes, the admin CLI, the seeds and the background worker run the same rules
 * (docs/architecture.md, "Services and their context").
 */
export interface Actor {
  kind: 'user' | 'system';
  /** The user's id; null for the system. */
  id: number | null;
  user: User | null;
  userType: 'admin' | 'dealer' | null;
  permissions: ReadonlySet<Permission>;
  isSuperAdmin: boolean;
}

export interface ServiceContext {
  /** The connection or the open transaction: every query of a service runs on this. */
  db: Knex | Knex.Transaction;
  actor: Actor;
  ip: string | null;
  userAgent: string | null;
  language: Language;
  t: TFunction;
  /** `test` only for a test key's calls (reseller API): its sales and wallet are the sandbox's. Absent: live. */
  mode?: SaleMode;
}

/** The system: the CLI, seeds and the worker. It holds every permission and is never a dealer. */
export function systemActor(): Actor {
  return { kind: 'system', id: null, user: null, userType: null, permissions: new Set(ALL_PERMISSIONS), isSuperAdmin: true };
}

export function userActor(user: User, permissions: ReadonlySet<Permission>, isSuperAdmin: boolean): Actor {
  return { kind: 'user', id: user.id, user, userType: user.user_type, permissions, isSuperAdmin };
}

export function systemContext(opts: { db?: Knex | Knex.Transaction; language?: Language } = {}): ServiceContext {
  const language = opts.language ?? 'en';
  return { db: opts.db ?? rootKnex(), actor: systemActor(), ip: null, userAgent: null, language, t: translator(language) };
}

/** The route's translation of `req` into a context: the only place a request meets a service. */
export function contextFromRequest(req: Request): ServiceContext {
  const auth = req.auth;
  return {
    db: rootKnex(),
    actor: auth
      ? userActor(auth.user, auth.permissions, auth.isSuperAdmin)
      : { kind: 'user', id: null, user: null, userType: null, permissions: new Set(), isSuperAdmin: false },
    ip: req.ip ?? null,
    userAgent: req.get('user-agent')?.slice(0, 500) ?? null,
    language: req.lng,
    t: req.t,
  };
}

export const isDealer = (actor: Actor): boolean => actor.userType === 'dealer';

/** Run `work` as one unit of work: its context's `db` is the transaction (see unit-of-work.ts). */
export function transact<T>(ctx: ServiceContext, work: (ctx: ServiceContext) => Promise<T>): Promise<T> {
  return unitOfWork((trx) => work({ ...ctx, db: trx }), ctx.db);
}

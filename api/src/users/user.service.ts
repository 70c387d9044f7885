import { formatMinor, type CreateUserInput, type UpdateUserInput } from '@app/contracts';
import { DealerDetails, User } from './user.model.ts';
import { AppError, fieldError, forbidden, validationFailed } from '../http/errors.ts';
import { decodeId } from '../http/ids.ts';
import { toDbTime } from '../database/time.ts';
import { onCommit } from '../database/unit-of-work.ts';
import { hashPassword } from '../auth/passwords.ts';
import { bumpAccessVersion } from '../auth/access-cache.ts';
import { forgetTrustedDevices } from '../auth/two-factor.ts';
import { assertCanManage, assertNotLastSuperAdmin, grantableDealerRole, resolveAdminRole } from './user-rules.ts';
import type { ServiceContext } from '../platform/context.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { bulkDealerBundles } from '../dealer-catalogue/dealer-catalogue.service.ts';
import { checkStarterPaymentMethods, copyStarterPaymentMethods } from './dealer-starter.ts';
import { readCompanySettings } from '../settings/company-settings.ts';

/**
 * Users: admins and dealers (docs/product.md sections 3, 5). Every rule lives here and takes a service
 * context, so the console's routes, the admin CLI and the seeds create and change users the
 * same way. Call these inside a unit of work (ctx.db is its transaction).
 */
export const DEALER_FIELDS = [
  'brand_color',
  'company_name',
  'description',
  'website',
  'contact_email',
  'contact_phone',
  'pricing_model',
  'translations',
] as const;
export const USER_FIELDS = ['name', 'email', 'phone', 'address', 'dealer_code'] as const;

/** Input after prepare(): the password travels hashed, computed before any transaction opens. */
export type PreparedCreate = Omit<CreateUserInput, 'password' | 'password_confirmation'> & { password_hash: string };
export type PreparedUpdate = Omit<UpdateUserInput, 'password' | 'password_confirmation'> & { password_hash?: string };

type Prepared<T> = Omit<T, 'password' | 'password_confirmation'> & (T extends { password: string } ? { password_hash: string } : { password_hash?: string });

export async function prepareUserInput<T extends { password?: string; password_confirmation?: unknown }>(input: T): Promise<Prepared<T>> {
  const { password, password_confirmation: _c, ...rest } = input;
  return { ...rest, ...(password ? { password_hash: await hashPassword(password) } : {}) } as Prepared<T>;
}

export function userSnapshot(u: User): Record<string, unknown> {
  return {
    name: u.name,
    email: u.email,
    phone: u.phone ?? null,
    address: u.address ?? null,
    dealer_code: u.dealer_code ?? null,
    status: u.status,
    user_type: u.user_type,
    role_id: u.roles?.[0]?.id ?? null,
    roles: (u.roles ?? []).map((r) => r.name).sort(),
    ...(u.dealer_details
      ? {
          dealer_details: Object.fromEntries(
            [...DEALER_FIELDS, 'logo_path'].map((f) => [f, (u.dealer_details as unknown as Record<string, unknown>)[f] ?? null]),
          ),
        }
      : {}),
  };
}

/** Signed out everywhere; devices trusted for the second factor must pass it again too. */
export async function revokeSessions(ctx: ServiceContext, userIds: number[]): Promise<void> {
  await ctx.db('sessions').whereIn('user_id', userIds).whereNull('revoked_at').update({ revoked_at: toDbTime() });
  await forgetTrustedDevices(ctx.db, userIds);
}

async function assertEmailFree(ctx: ServiceContext, email: string, exceptId?: number) {
  const q = ctx.db('users').where({ email });
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first('id')) throw fieldError('email', 'validation:email_taken');
}

async function assertDealerCodeFree(ctx: ServiceContext, code: string, exceptId?: number) {
  const q = ctx.db('users').whereRaw('LOWER(dealer_code) = LOWER(?)', [code]);
  if (exceptId) q.whereNot('id', exceptId);
  if (await q.first('id')) throw fieldError('dealer_code', 'validation:dealer_code_taken');
}

/** A dealer's wallet exists from the day the dealer does (balance 0, in the company currency: docs/decisions.md, "One currency"). */
async function ensureWallet(ctx: ServiceContext, dealerId: number): Promise<void> {
  if (await ctx.db('wallets').where({ dealer_id: dealerId, mode: 'live' }).first('id')) return;
  const now = toDbTime();
  const { currency } = await readCompanySettings(ctx.db);
  await ctx.db('wallets').insert({ dealer_id: dealerId, mode: 'live', balance: 0, currency, created_at: now, updated_at: now });
}

async function setRoles(ctx: ServiceContext, userId: number, roleIds: number[]): Promise<void> {
  await ctx.db('user_roles').where('user_id', userId).delete();
  if (roleIds.length) await ctx.db('user_roles').insert(roleIds.map((role_id) => ({ user_id: userId, role_id })));
}

/**
 * Create an admin (with its role) or a dealer (with the dealer role, its details and its
 * wallet): the one place a dealer comes into being. `logo` is an already stored URL path.
 */
export async function createUser(
  ctx: ServiceContext,
  input: PreparedCreate & { role_name?: string },
  opts: { logo?: string | null; verified?: boolean; storage?: FileStorage } = {},
): Promise<User> {
  const type = input.user_type ?? 'admin';
  const errors: Record<string, string[]> = {};
  const collect = async (check: () => Promise<unknown>) => {
    try {
      await check();
    } catch (err) {
      const e = err as { status?: number; errors?: Record<string, string[]> };
      if (e.status !== 422 || !e.errors) throw err;
      Object.assign(errors, e.errors);
    }
  };
  await collect(() => assertEmailFree(ctx, input.email));
  // Dealer codes are unique whatever the case (they name storefront URLs), for any user type.
  if (input.dealer_code) await collect(() => assertDealerCodeFree(ctx, input.dealer_code!));
  let roleId = 0;
  await collect(async () => {
    if (type === 'dealer') roleId = (await grantableDealerRole(ctx.db, ctx.actor)).id;
    else if (input.role_name) roleId = (await ctx.db('roles').where({ name: input.role_name, guard_name: 'web' }).first('id')).id;
    else roleId = (await resolveAdminRole(ctx.db, ctx.actor, input.role_id)).id;
  });
  if (type === 'dealer' && !opts.logo && ctx.actor.kind !== 'system') errors.dealer_logo = ['validation:dealer_logo_required'];
  const starterMethods = type === 'dealer' ? await checkStarterPaymentMethods(ctx, input.pricing_model ?? 'cost', input.starter_payment_methods, errors) : [];
  if (Object.keys(errors).length) throw validationFailed(errors);

  const now = toDbTime();
  const user = await User.query(ctx.db).insertAndFetch({
    name: input.name,
    email: input.email,
    password: input.password_hash,
    phone: input.phone ?? null,
    address: input.address ?? null,
    dealer_code: input.dealer_code ?? null,
    user_type: type,
    status: input.status ?? 'active',
    email_verified_at: opts.verified ? now : null,
  } as Partial<User>);
  await setRoles(ctx, user.id, [roleId]);
  if (type === 'dealer') {
    await DealerDetails.query(ctx.db).insert({
      user_id: user.id,
      brand_color: input.brand_color ?? '#000000',
      company_name: input.company_name ?? null,
      description: input.description ?? null,
      website: input.website ?? null,
      contact_email: input.contact_email ?? null,
      contact_phone: input.contact_phone ?? null,
      pricing_model: input.pricing_model ?? 'cost',
      logo_path: opts.logo ?? null,
      translations: input.translations ?? null,
    } as Partial<DealerDetails>);
    await ensureWallet(ctx, user.id);
    // Ready to sell: the company's catalogue at cost + the chosen margin and, for a "Cost + Profit"
    // shop, the company's payment methods with the dealer's own numbers, in the same transaction.
    if (input.starter_margin !== undefined) await bulkDealerBundles(ctx, user.id, { status: 'active', profit: input.starter_margin });
    await copyStarterPaymentMethods(ctx, user.id, starterMethods, opts.storage);
  }
  // Lists kept under the access version show the new user (the admin CLI and the demo log nothing).
  await bumpAccessVersion(ctx.db);
  return user;
}

/**
 * Change a user. Status needs 'change user status', type and role 'assign user roles', the
 * rest 'update users'; nobody changes its own access or acts above its own rights; the last
 * active super admin stays. Returns the log action ('status_changed' when only that changed).
 */
export async function updateUser(
  ctx: ServiceContext,
  user: User,
  input: PreparedUpdate,
  opts: { logo?: string; storage: FileStorage },
): Promise<{ action: 'updated' | 'status_changed'; after?: Record<string, unknown> }> {
  const actor = ctx.actor;
  const held = actor.permissions;
  // The console's edit form sends status, type and role every time: only real changes count.
  const currentRoleIds: number[] = (await ctx.db('user_roles').where('user_id', user.id).select('role_id')).map((r: { role_id: number }) => r.role_id);
  const changes = {
    status: input.status !== undefined && input.status !== user.status,
    type: input.user_type !== undefined && input.user_type !== user.user_type,
    role: input.role_id !== undefined && !(currentRoleIds.length === 1 && currentRoleIds[0] === decodeId(input.role_id as string | number)),
  };
  const touchesProfile =
    [...USER_FIELDS, ...DEALER_FIELDS, 'password_hash'].some((f) => (input as Record<string, unknown>)[f] !== undefined) || Boolean(opts.logo);
  if (touchesProfile && !held.has('update users')) throw forbidden();
  if (changes.status && !held.has('change user status')) throw forbidden();
  if ((changes.type || changes.role) && !held.has('assign user roles')) throw forbidden();
  // A request that changes nothing still needs the permission its fields belong to.
  const noOp = !touchesProfile && !changes.status && !changes.type && !changes.role;
  if (noOp && !held.has(input.status !== undefined ? 'change user status' : 'update users')) throw forbidden();
  if (user.id === actor.id && (changes.status || changes.type || changes.role)) throw forbidden('api:users.cannot_change_own_access');
  await assertCanManage(ctx.db, actor, user);

  const patch: Partial<User> = {};
  for (const f of USER_FIELDS) if (input[f] !== undefined) (patch as Record<string, unknown>)[f] = input[f];
  if (input.status !== undefined) patch.status = input.status;
  const emailChanged = Boolean(patch.email && patch.email !== user.email);
  if (emailChanged) await assertEmailFree(ctx, patch.email!, user.id);
  const newType = input.user_type ?? user.user_type;
  const newCode = patch.dealer_code !== undefined ? patch.dealer_code : user.dealer_code;
  if (newType === 'dealer' && !newCode) throw fieldError('dealer_code', 'validation:dealer_code_required');
  if (newCode && (newCode !== user.dealer_code || changes.type)) await assertDealerCodeFree(ctx, newCode, user.id);
  // One's own password changes through /auth/change-password, which asks for the current one.
  if (input.password_hash && user.id === actor.id) throw forbidden('api:users.use_change_password');
  if (input.password_hash) patch.password = input.password_hash;
  if (changes.type) patch.user_type = newType;

  if (newType === 'dealer' && user.user_type === 'dealer') await assertPricingChangeMeant(ctx, user, input);
  if (changes.status && input.status === 'inactive') await assertNotLastSuperAdmin(ctx.db, [user.id]);
  if (changes.type || changes.role) {
    if (newType === 'dealer') {
      await assertNotLastSuperAdmin(ctx.db, [user.id]);
      await setRoles(ctx, user.id, [(await grantableDealerRole(ctx.db, actor)).id]);
    } else {
      if (input.role_id === undefined) throw fieldError('role_id', 'validation:role_required');
      const role = await resolveAdminRole(ctx.db, actor, input.role_id);
      if (!currentRoleIds.includes(role.id)) await assertNotLastSuperAdmin(ctx.db, [user.id]);
      await setRoles(ctx, user.id, [role.id]);
    }
  }
  if (Object.keys(patch).length) await User.query(ctx.db).patch(patch).where('id', user.id);
  if (newType === 'dealer') {
    const details = await DealerDetails.query(ctx.db).findOne({ user_id: user.id });
    const dPatch: Partial<DealerDetails> = {};
    for (const f of DEALER_FIELDS) if (input[f] !== undefined) (dPatch as Record<string, unknown>)[f] = input[f];
    if (opts.logo) dPatch.logo_path = opts.logo;
    if (details) {
      if (Object.keys(dPatch).length) await DealerDetails.query(ctx.db).patch(dPatch).where('id', details.id);
      const old = details.logo_path;
      if (opts.logo && old) onCommit(() => opts.storage.remove(old));
    } else {
      await DealerDetails.query(ctx.db).insert({ user_id: user.id, brand_color: '#000000', pricing_model: 'cost', ...dPatch } as Partial<DealerDetails>);
    }
    await ensureWallet(ctx, user.id);
  }
  // Signed-in calls load the user again (auth/access-cache.ts), logged or not: updated_at moved at least.
  await bumpAccessVersion(ctx.db);
  // Deactivated, given a new password or a new sign-in email by an admin: signed out everywhere.
  if ((changes.status && input.status === 'inactive') || input.password_hash || emailChanged) await revokeSessions(ctx, [user.id]);
  return {
    action: changes.status && !touchesProfile && !changes.type && !changes.role ? 'status_changed' : 'updated',
    ...(input.password_hash ? { after: { password_changed: true } } : {}),
  };
}

/**
 * A dealer's pricing model decides who pays for its sales ("Cost + Profit": its wallet; "Profit
 * Only": the company, crediting its profit), so switching it while the wallet holds money changes
 * what that money is for: refused (409, naming the balance) unless the request says it is meant.
 */
async function assertPricingChangeMeant(ctx: ServiceContext, user: User, input: PreparedUpdate): Promise<void> {
  const current = user.dealer_details?.pricing_model ?? 'cost';
  if (input.pricing_model === undefined || input.pricing_model === current || input.confirm_pricing_change) return;
  const wallet: { balance: number | string; currency: string } | undefined = await ctx
    .db('wallets')
    .where({ dealer_id: user.id, mode: 'live' })
    // Locked: a top-up at the same moment is either seen here (refused) or waits for the switch.
    .forUpdate()
    .first('balance', 'currency');
  if (!wallet || Number(wallet.balance) === 0) return;
  throw new AppError(409, 'api:users.pricing_change_needs_confirmation', undefined, {
    balance: `${formatMinor(Number(wallet.balance))} ${wallet.currency}`,
  });
}

/** Set or clear a dealer's logo; the replaced file goes after commit. Row-locked so parallel uploads leave one file. */
export async function setDealerLogo(ctx: ServiceContext, user: User, url: string | null, storage: FileStorage): Promise<void> {
  if (user.user_type !== 'dealer') throw fieldError(url ? 'logo' : 'user', 'api:users.not_a_dealer');
  const details = await DealerDetails.query(ctx.db).findOne({ user_id: user.id }).forUpdate();
  const old = details?.logo_path ?? null;
  if (old === url) return;
  if (details) await DealerDetails.query(ctx.db).patch({ logo_path: url }).where('id', details.id);
  else await DealerDetails.query(ctx.db).insert({ user_id: user.id, brand_color: '#000000', pricing_model: 'cost', logo_path: url } as Partial<DealerDetails>);
  await bumpAccessVersion(ctx.db);
  if (old) onCommit(() => storage.remove(old));
}

import type { Knex } from 'knex';
import { DEALER_ROLE, SUPER_ADMIN_ROLE } from '@app/contracts';
import { hashPassword } from '../../api/src/auth/passwords.ts';
import type { SeedOptions } from '../migration-source.ts';

const now = () => new Date().toISOString().replace('T', ' ').replace('Z', '');

export const DEMO_ADMIN = { email: 'admin@example.com', password: 'Admin@12345', name: 'Super Admin' };
export const DEMO_DEALER = { email: 'dealer@example.com', password: 'Dealer@12345', name: 'Demo Dealer', code: 'DEMO', company: 'Demo Telecom Dealer' };

/**
 * Demo sign-ins for a fresh install; skipped when SEED_DEMO=false or NODE_ENV=production
 * (production makes its first admin with `npm run user:create-admin`). Existing users are
 * left as they are, so restarting never resets a changed password.
 */
export async function seed(knex: Knex, opts: SeedOptions = {}): Promise<void> {
  // The app passes its decision; the knex CLI passes nothing, so the environment decides.
  const wanted = opts.seedDemo ?? (process.env.SEED_DEMO ? process.env.SEED_DEMO !== 'false' : process.env.NODE_ENV !== 'production');
  if (!wanted) return;
  const role = async (name: string) => (await knex('roles').where({ name, guard_name: 'web' }).first()).id as number;

  if (!(await knex('users').where('email', DEMO_ADMIN.email).first())) {
    await knex('users').insert({
      name: DEMO_ADMIN.name,
      email: DEMO_ADMIN.email,
      password: await hashPassword(DEMO_ADMIN.password),
      user_type: 'admin',
      status: 'active',
      email_verified_at: now(),
      created_at: now(),
      updated_at: now(),
    });
    const admin = await knex('users').where('email', DEMO_ADMIN.email).first();
    await knex('user_roles').insert({ user_id: admin.id, role_id: await role(SUPER_ADMIN_ROLE) });
  }

  if (!(await knex('users').where('email', DEMO_DEALER.email).first())) {
    await knex('users').insert({
      name: DEMO_DEALER.name,
      email: DEMO_DEALER.email,
      password: await hashPassword(DEMO_DEALER.password),
      phone: '+252615000000',
      dealer_code: DEMO_DEALER.code,
      user_type: 'dealer',
      status: 'active',
      email_verified_at: now(),
      created_at: now(),
      updated_at: now(),
    });
    const dealer = await knex('users').where('email', DEMO_DEALER.email).first();
    await knex('user_roles').insert({ user_id: dealer.id, role_id: await role(DEALER_ROLE) });
    await knex('dealer_details').insert({
      user_id: dealer.id,
      brand_color: '#0F766E',
      company_name: DEMO_DEALER.company,
      description: 'Data bundles for every Somali network, delivered in seconds.',
      contact_email: DEMO_DEALER.email,
      contact_phone: '+252615000000',
      pricing_model: 'cost',
      created_at: now(),
      updated_at: now(),
    });
    await knex('wallets').insert({ dealer_id: dealer.id, balance: 0, currency: 'USD', created_at: now(), updated_at: now() });
  }
}

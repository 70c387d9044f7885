import type { Knex } from 'knex';
import { createUser, prepareUserInput } from '../users/user.service.ts';
import { systemContext, transact } from '../platform/context.ts';

export const DEMO_ADMIN = { email: 'admin@example.com', password: 'Admin@12345', name: 'Super Admin' };
export const DEMO_DEALER = { email: 'dealer@example.com', password: 'Dealer@12345', name: 'Demo Dealer', code: 'DEMO', company: 'Demo Telecom Dealer' };

/**
 * Demo sign-ins for a fresh install (skipped when SEED_DEMO=false or NODE_ENV=production).
 * Made by the same user service as the console, acting as the system, so a demo dealer gets
 * exactly what a real one gets. Existing users are left as they are, so restarting never resets
 * a changed password.
 */
export async function seedDemoData(knex: Knex): Promise<void> {
  const ctx = systemContext({ db: knex });
  if (!(await knex('users').where('email', DEMO_ADMIN.email).first('id'))) {
    const input = await prepareUserInput({ name: DEMO_ADMIN.name, email: DEMO_ADMIN.email, password: DEMO_ADMIN.password, user_type: 'admin' as const });
    await transact(ctx, (tctx) => createUser(tctx, { ...input, role_name: 'super-admin' }, { verified: true }));
  }
  if (!(await knex('users').where('email', DEMO_DEALER.email).first('id'))) {
    const input = await prepareUserInput({
      name: DEMO_DEALER.name,
      email: DEMO_DEALER.email,
      password: DEMO_DEALER.password,
      phone: '+252615000000',
      dealer_code: DEMO_DEALER.code,
      user_type: 'dealer' as const,
      brand_color: '#0F766E',
      company_name: DEMO_DEALER.company,
      description: 'Data bundles for every Somali network, delivered in seconds.',
      translations: {
        ae: { description: 'باقات بيانات لكل شبكات الصومال، تصلك في ثوانٍ.' },
        so: { description: 'Xirmooyin internet oo loogu talagalay shabakad kasta oo Soomaaliyeed, kuu imanaya ilbiriqsiyo gudahood.' },
      },
      contact_email: DEMO_DEALER.email,
      contact_phone: '+252615000000',
      pricing_model: 'cost' as const,
    });
    await transact(ctx, (tctx) => createUser(tctx, input, { verified: true }));
  }
}

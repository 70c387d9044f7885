import type { Knex } from 'knex';
import { PAYER_NETWORKS, toMinor } from '@app/contracts';
import { systemContext, transact } from '../platform/context.ts';
import { toDbTime } from '../database/time.ts';
import { createUser, prepareUserInput } from '../users/user.service.ts';
import { bulkDealerBundles } from '../dealer-catalogue/dealer-catalogue.service.ts';
import { topUp } from '../wallets/wallet.service.ts';
import { findStorefrontDealer, storefrontPaymentMethods, storefrontProviders } from '../storefront/storefront.service.ts';
import { completeRecharge, createRecharge, failRecharge } from '../recharges/recharge.service.ts';
import { DEMO_DEALER } from './demo-data.ts';

/**
 * Three weeks of sales for a fresh install, so the dashboard and the reports have something to
 * show on first start: the DEMO dealer ("Cost + Profit") and a second dealer, HODAN ("Profit
 * Only"). Every sale goes through the same service code as a real one (priced, debited, settled,
 * refunded), then is dated back to its day. Skipped with SEED_DEMO_HISTORY=false, and when any
 * recharge exists.
 */
export const SECOND_DEALER = { email: 'hodan@example.com', password: 'Dealer@12345', name: 'Hodan Data', code: 'HODAN' };

/** A small deterministic generator: the same demo on every fresh install. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export async function seedDemoHistory(knex: Knex, days = 21): Promise<void> {
  if (await knex('recharges').first('id')) return;
  const demo = await knex('users').where({ dealer_code: DEMO_DEALER.code }).first('id');
  if (!demo) return;
  const ctx = systemContext({ db: knex });
  if (!(await knex('users').where({ email: SECOND_DEALER.email }).first('id'))) {
    const input = await prepareUserInput({
      name: SECOND_DEALER.name,
      email: SECOND_DEALER.email,
      password: SECOND_DEALER.password,
      phone: '+252617100200',
      dealer_code: SECOND_DEALER.code,
      user_type: 'dealer' as const,
      brand_color: '#7C3AED',
      company_name: 'Hodan Data Services',
      description: 'Daily and monthly bundles in Hodan district.',
      pricing_model: 'profit' as const,
    });
    await transact(ctx, (tctx) => createUser(tctx, input, { verified: true }));
  }
  const hodan = await knex('users').where({ dealer_code: SECOND_DEALER.code }).first('id');
  await transact(ctx, async (tctx) => {
    for (const code of ['HORMUUD', 'SOMTEL']) {
      const provider = await tctx.db('providers').where({ code }).first('id');
      if (provider) await bulkDealerBundles(tctx, hodan.id, { provider_id: provider.id, status: 'active', profit: toMinor('0.15')! });
    }
    const wallet = await tctx.db('wallets').where({ dealer_id: demo.id, mode: 'live' }).first('id');
    await topUp(tctx, wallet.id, { amount: toMinor('600.00')!, reference: 'EVC-DEMO-OPENING', note: 'Opening balance (demo)' });
  });

  const next = random(20261122);
  const today = Date.now();
  for (const code of [DEMO_DEALER.code, SECOND_DEALER.code]) {
    const dealer = await findStorefrontDealer(knex, code);
    const bundles = (await storefrontProviders(knex, dealer.id)).providers.flatMap((p) =>
      p.categories.flatMap((c) => c.bundles.map((b) => ({ id: b.id, prefix: p.phone_prefixes[0] ?? '61' }))),
    );
    const methods = await storefrontPaymentMethods(knex, dealer);
    if (!bundles.length || !methods.length) continue;
    let n = 0;
    for (let day = days; day >= 1; day--) {
      const sales = 3 + Math.floor(next() * 6);
      for (let i = 0; i < sales; i++) {
        n += 1;
        // Cheap bundles sell most.
        const bundle = bundles[Math.floor(next() ** 2 * bundles.length)];
        const phone = `${bundle.prefix}${String(1000000 + Math.floor(next() * 8999999)).slice(0, 7)}`;
        const roll = next();
        const method = methods[Math.floor(next() * methods.length)];
        // Mobile money is paid from a number on its own network (eDahab from Somtel, ...).
        const network = PAYER_NETWORKS[method.type];
        const payer = network && !network.prefixes.some((p) => phone.startsWith(p)) ? `${network.prefixes[0]}${phone.slice(-7)}` : phone;
        const created = await createRecharge(
          ctx,
          dealer,
          { bundle_id: bundle.id, payment_method_id: method.id, phone, payer_phone: payer },
          `demo-history-${code}-${n}`,
        ).catch(() => null);
        if (!created) continue; // e.g. the DEMO wallet ran out: that is a refusal, as in real life
        await knex('recharges').where({ id: created.id }).update({ status: 'processing', attempts: 1, processing_started_at: toDbTime() });
        // The states the worker would have recorded: paid and delivered, declined, or refused by the operator (reserve cancelled).
        const states =
          roll < 0.86
            ? { payment_state: 'collected', delivery_state: 'delivered' }
            : roll < 0.93
              ? { payment_state: 'declined', delivery_state: 'none' }
              : { payment_state: 'released', delivery_state: 'failed' };
        await knex('recharges')
          .where({ id: created.id })
          .update({
            ...states,
            payment_flow: 'preauthorize',
            payment_adapter: 'sandbox',
            operator_adapter: states.delivery_state === 'none' ? null : 'sandbox',
            payment_reference: states.payment_state === 'declined' ? null : `DEMO-${code}-${n}`,
          });
        if (roll < 0.86) await completeRecharge(ctx, created.id, `OPR-DEMO-${code}-${n}`);
        else
          await failRecharge(
            ctx,
            created.id,
            roll < 0.93 ? 'Payment declined (5206): the payer cancelled' : 'The operator rejected the number (not eligible for data bundles).',
          );
        // Dated back to its day, at a time in the shop's opening hours (06:00-21:59 UTC+3).
        const at = new Date(today - day * 86_400_000);
        at.setUTCHours(3 + Math.floor(next() * 16), Math.floor(next() * 60), Math.floor(next() * 60), 0);
        const when = toDbTime(at);
        const later = toDbTime(new Date(at.getTime() + 20_000));
        await knex('recharges').where({ id: created.id }).update({ created_at: when, updated_at: later, processing_started_at: when });
        await knex('recharges').where({ id: created.id }).whereNotNull('completed_at').update({ completed_at: later });
        await knex('recharges').where({ id: created.id }).whereNotNull('failed_at').update({ failed_at: later });
        await knex('recharges').where({ id: created.id }).whereNotNull('refunded_at').update({ refunded_at: later });
        await knex('wallet_transactions').where({ recharge_id: created.id }).update({ created_at: when });
        await knex('activity_log').where({ subject_type: 'recharge', subject_id: created.id }).update({ created_at: when });
      }
    }
  }
  // The opening top-up came before the first sale, so the wallet's history (the balance chart) adds up.
  const opening = toDbTime(new Date(today - (days + 1) * 86_400_000));
  await knex('wallet_transactions').where({ reference: 'EVC-DEMO-OPENING' }).update({ created_at: opening });
}

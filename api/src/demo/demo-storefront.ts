import type { Knex } from 'knex';
import { toMinor } from '@app/contracts';
import { systemContext, transact, type ServiceContext } from '../platform/context.ts';
import { bulkDealerBundles, updateDealerBundle } from '../dealer-catalogue/dealer-catalogue.service.ts';
import { writeCompanySettings } from '../settings/company-settings.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { toDbTime } from '../database/time.ts';
import { DEMO_DEALER } from './demo-data.ts';
import { gradientPng } from './demo-images.ts';

/**
 * The DEMO dealer's storefront, so a new user sees a working shop at /dealer/DEMO: the bundles of
 * three operators at cost + 0.10 (one with its own price), banners, payment methods and contacts,
 * plus the company's settings, contacts and areas. Written once: a dealer that already has a
 * catalogue is left alone.
 */
export async function seedDemoStorefront(knex: Knex, storage: FileStorage): Promise<void> {
  const dealer = await knex('users').where({ dealer_code: DEMO_DEALER.code }).first('id');
  if (!dealer || (await knex('dealer_bundles').where({ dealer_id: dealer.id }).first('id'))) return;
  const images = await Promise.all([
    storage.put('banners', 'png', gradientPng(1200, 400, '#0F766E', '#14B8A6')),
    storage.put('banners', 'png', gradientPng(1200, 400, '#1D4ED8', '#60A5FA')),
    storage.put('banners', 'png', gradientPng(1200, 400, '#B45309', '#F59E0B')),
  ]);
  await transact(systemContext({ db: knex }), async (ctx) => {
    for (const code of ['HORMUUD', 'SOMTEL', 'GOLIS']) {
      const provider = await ctx.db('providers').where({ code }).first('id');
      if (provider) await bulkDealerBundles(ctx, dealer.id, { provider_id: provider.id, status: 'active', profit: toMinor('0.10')! });
    }
    const special = await ctx
      .db('bundles')
      .join('categories', 'categories.id', 'bundles.category_id')
      .join('providers', 'providers.id', 'categories.provider_id')
      .where({ 'providers.code': 'HORMUUD', 'bundles.name': '10 GB Monthly' })
      .first('bundles.id');
    if (special) await updateDealerBundle(ctx, dealer.id, special.id, { selling_price: toMinor('5.75')! });
    await insertAll(ctx, 'banners', [
      {
        dealer_id: dealer.id,
        title: 'Double data every Friday',
        image_path: images[0],
        link_url: null,
        sort_order: 0,
        translations: tr({ title: 'ضعف البيانات كل يوم جمعة' }, { title: 'Xog labanlaaban Jimce kasta' }),
      },
      {
        dealer_id: dealer.id,
        title: 'Monthly bundles from $5.75',
        image_path: images[1],
        link_url: null,
        sort_order: 1,
        translations: tr({ title: 'باقات شهرية ابتداءً من 5.75$' }, { title: 'Xirmooyin bille ah oo ka bilaabma $5.75' }),
      },
      {
        dealer_id: null,
        title: 'Pay with EVC Plus, Zaad or eDahab',
        image_path: images[2],
        link_url: null,
        sort_order: 2,
        translations: tr({ title: 'ادفع عبر EVC Plus أو Zaad أو eDahab' }, { title: 'Ku bixi EVC Plus, Zaad ama eDahab' }),
      },
    ]);
    await insertAll(ctx, 'payment_methods', [
      {
        dealer_id: dealer.id,
        name: 'EVC Plus',
        type: 'evc_plus',
        account_number: '615000000',
        instructions: 'Dial *712*615000000*amount# and send the amount shown.',
        sort_order: 0,
        translations: tr(
          { instructions: 'اطلب *712*615000000*المبلغ# وأرسل المبلغ المعروض.' },
          { instructions: 'Garaac *712*615000000*lacagta# oo dir lacagta lagu muujiyay.' },
        ),
      },
      {
        dealer_id: dealer.id,
        name: 'eDahab',
        type: 'edahab',
        // Through eDahab's own API (its stand-in in the demo): a PIN prompt, no refund.
        gateway: 'edahab',
        account_number: '625000000',
        instructions: 'Send the amount shown from your eDahab wallet.',
        sort_order: 1,
        translations: tr({ instructions: 'أرسل المبلغ المعروض من محفظة eDahab.' }, { instructions: 'Ka dir lacagta lagu muujiyay boorsadaada eDahab.' }),
      },
      {
        dealer_id: null,
        name: 'EVC Plus (company)',
        type: 'evc_plus',
        account_number: '612000000',
        instructions: 'Merchant payment to the company.',
        sort_order: 0,
        translations: tr(
          { name: 'EVC Plus (الشركة)', instructions: 'دفع تاجر إلى الشركة.' },
          { name: 'EVC Plus (shirkadda)', instructions: 'Lacag-bixin ganacsi oo shirkadda loo diro.' },
        ),
      },
      {
        dealer_id: null,
        name: 'Zaad (company)',
        type: 'zaad',
        account_number: '634000000',
        instructions: 'Send the amount shown to the company Zaad number.',
        sort_order: 1,
        translations: tr(
          { name: 'Zaad (الشركة)', instructions: 'أرسل المبلغ المعروض إلى رقم Zaad الخاص بالشركة.' },
          { name: 'Zaad (shirkadda)', instructions: 'U dir lacagta lagu muujiyay lambarka Zaad ee shirkadda.' },
        ),
      },
    ]);
    await insertAll(ctx, 'contacts', [
      {
        dealer_id: dealer.id,
        type: 'whatsapp',
        label: 'Orders on WhatsApp',
        value: '+252 61 5000000',
        sort_order: 0,
        translations: tr({ label: 'الطلبات عبر واتساب' }, { label: 'Dalabaadka WhatsApp' }),
      },
      {
        dealer_id: dealer.id,
        type: 'phone',
        label: 'Call us',
        value: '+252 61 5000000',
        sort_order: 1,
        translations: tr({ label: 'اتصل بنا' }, { label: 'Na soo wac' }),
      },
      {
        dealer_id: dealer.id,
        type: 'email',
        label: 'Email',
        value: DEMO_DEALER.email,
        sort_order: 2,
        translations: tr({ label: 'البريد الإلكتروني' }, { label: 'Iimayl' }),
      },
      {
        dealer_id: dealer.id,
        type: 'address',
        label: 'Shop',
        value: 'Maka Al Mukarama Road, Hodan, Mogadishu',
        sort_order: 3,
        translations: tr({ label: 'المتجر' }, { label: 'Dukaanka' }),
      },
      {
        dealer_id: null,
        type: 'email',
        label: 'Company support',
        value: 'support@example.com',
        sort_order: 9,
        translations: tr({ label: 'دعم الشركة' }, { label: 'Taageerada shirkadda' }),
      },
    ]);
    if (!(await ctx.db('areas').first('id'))) {
      const region = async (name: string, code: string, cities: [string, string[]][]) => {
        const [id] = await insertAll(ctx, 'areas', [{ name, code, type: 'region', parent_id: null }]);
        for (const [city, districts] of cities) {
          const [cityId] = await insertAll(ctx, 'areas', [{ name: city, code: null, type: 'city', parent_id: id }]);
          if (districts.length)
            await insertAll(
              ctx,
              'areas',
              districts.map((d) => ({ name: d, code: null, type: 'district', parent_id: cityId })),
            );
        }
      };
      await region('Banaadir', 'BN', [['Mogadishu', ['Hodan', 'Wadajir', 'Hawl Wadaag', 'Karaan']]]);
      await region('Woqooyi Galbeed', 'WG', [['Hargeisa', []]]);
      await region('Nugaal', 'NU', [['Garowe', []]]);
      await region('Bari', 'BR', [['Bosaso', []]]);
    }
    if (!(await ctx.db('settings').where({ group: 'company' }).first('id'))) {
      await writeCompanySettings(ctx.db, {
        company_name: 'Somali Data Bundles',
        address: 'Mogadishu, Somalia',
        phone: '+252 61 2000000',
        email: 'support@example.com',
        currency: 'USD',
        timezone: 'Africa/Mogadishu',
        footer_text: 'Somali Data Bundles',
      });
    }
  });
}

/** The stored `translations` text of a demo row: Arabic and Somali texts (docs/data-model.md, Content translations). */
const tr = (ae: Record<string, string>, so: Record<string, string>) => JSON.stringify({ ae, so });

/** Inserts rows with status, times and no soft delete; returns their ids in order. */
async function insertAll(ctx: ServiceContext, table: string, rows: Record<string, unknown>[]): Promise<number[]> {
  const now = toDbTime();
  const ids: number[] = [];
  for (const row of rows) {
    const [id] = await ctx.db(table).insert({ status: 'active', created_at: now, updated_at: now, ...row });
    ids.push(typeof id === 'object' ? (id as { id: number }).id : Number(id));
  }
  return ids;
}

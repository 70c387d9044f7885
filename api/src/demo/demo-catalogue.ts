import type { Knex } from 'knex';
import { toMinor } from '@app/contracts';
import { systemContext, transact } from '../platform/context.ts';
import { createBundle, createCategory, createProvider } from '../catalogue/catalogue.service.ts';

/**
 * A Somali demo catalogue (prefixes from public numbering plans; prices are examples), made by the
 * same catalogue service as the console, once: an install that already has operators is left alone.
 */
const OPERATORS = [
  { name: 'Hormuud', code: 'HORMUUD', phone_prefixes: ['61', '77'], translations: { ae: { name: 'هرمود' } } },
  { name: 'Somtel', code: 'SOMTEL', phone_prefixes: ['62', '65', '66'], translations: { ae: { name: 'سومتل' } } },
  { name: 'Golis', code: 'GOLIS', phone_prefixes: ['90'], translations: { ae: { name: 'غوليس' } } },
  { name: 'Telesom', code: 'TELESOM', phone_prefixes: ['63'], translations: { ae: { name: 'تيليسوم' } } },
];
/** The demo's words in Arabic and Somali (docs/data-model.md, Content translations). */
const WORDS: Record<string, { ae: string; so: string }> = {
  Daily: { ae: 'يومي', so: 'Maalinle' },
  Weekly: { ae: 'أسبوعي', so: 'Toddobaadle' },
  Monthly: { ae: 'شهري', so: 'Bille' },
  Unlimited: { ae: 'غير محدود', so: 'Aan xadidnayn' },
};
/** "1 GB Daily" -> "1 جيجابايت يومي" / "1 GB Maalinle"; "Unlimited 30 days" -> "غير محدود 30 يومًا" / "Aan xadidnayn 30 maalmood". */
const bundleTranslations = (name: string) => {
  const unlimited = /^Unlimited (\d+) days$/.exec(name);
  if (unlimited) return { ae: { name: `${WORDS.Unlimited.ae} ${unlimited[1]} يومًا` }, so: { name: `${WORDS.Unlimited.so} ${unlimited[1]} maalmood` } };
  const m = /^(\d+) (MB|GB) (\w+)$/.exec(name);
  if (!m || !WORDS[m[3]]) return null;
  return { ae: { name: `${m[1]} ${m[2] === 'GB' ? 'جيجابايت' : 'ميجابايت'} ${WORDS[m[3]].ae}` }, so: { name: `${m[1]} ${m[2]} ${WORDS[m[3]].so}` } };
};
// name, MB (null: unlimited), days, cost, price
const CATEGORIES: [string, [string, number | null, number, string, string][]][] = [
  [
    'Daily',
    [
      ['500 MB Daily', 500, 1, '0.20', '0.25'],
      ['1 GB Daily', 1024, 1, '0.40', '0.50'],
      ['2 GB Daily', 2048, 1, '0.70', '0.85'],
    ],
  ],
  [
    'Weekly',
    [
      ['3 GB Weekly', 3072, 7, '1.50', '1.80'],
      ['7 GB Weekly', 7168, 7, '3.00', '3.50'],
    ],
  ],
  [
    'Monthly',
    [
      ['10 GB Monthly', 10240, 30, '5.00', '6.00'],
      ['25 GB Monthly', 25600, 30, '10.00', '12.00'],
    ],
  ],
  ['Unlimited', [['Unlimited 30 days', null, 30, '25.00', '30.00']]],
];

export async function seedDemoCatalogue(knex: Knex): Promise<void> {
  if (await knex('providers').first('id')) return;
  await transact(systemContext({ db: knex }), async (ctx) => {
    for (const [i, op] of OPERATORS.entries()) {
      const provider = await createProvider(ctx, { ...op, sort_order: i });
      for (const [j, [category, bundles]] of CATEGORIES.entries()) {
        const words = WORDS[category];
        const cat = await createCategory(ctx, {
          provider_id: provider.id,
          name: category,
          sort_order: j,
          translations: words ? { ae: { name: words.ae }, so: { name: words.so } } : null,
        });
        for (const [k, [name, mb, days, cost, price]] of bundles.entries()) {
          await createBundle(ctx, {
            category_id: cat.id,
            name,
            data_volume_mb: mb,
            validity_days: days,
            cost_price: toMinor(cost),
            selling_price: toMinor(price),
            sort_order: k,
            translations: bundleTranslations(name),
          });
        }
      }
    }
  });
}

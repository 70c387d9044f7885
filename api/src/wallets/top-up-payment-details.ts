import { gatewayOf, translatedText, type TopUpPaymentDetails } from '@app/contracts';
import type { ServiceContext } from '../platform/context.ts';
import { readCompanySettings } from '../settings/company-settings.ts';
import { activePaymentMethods } from '../settings/payment-methods.ts';

/**
 * Where a dealer pays a top-up in (the top-up request dialog; issue 28 item 12): the company's
 * active payment methods that say where to pay (an account number or instructions), manual ones
 * first (paid by hand: a bank account, cash at the office), in the reader's language; and the
 * company's phone for anything else. Never a dealer's own methods.
 */
export async function topUpPaymentDetails(ctx: ServiceContext): Promise<TopUpPaymentDetails> {
  const [methods, company] = await Promise.all([activePaymentMethods(ctx.db, null), readCompanySettings(ctx.db)]);
  const lang = ctx.language;
  const shown = methods
    .filter((m) => m.dealer_id == null && (m.account_number?.trim() || m.instructions?.trim()))
    .map((m, i) => ({ m, manual: gatewayOf(m) === 'manual', i }))
    .sort((a, b) => Number(b.manual) - Number(a.manual) || a.i - b.i)
    .map(({ m }) => ({
      name: String(translatedText(m.translations ?? null, lang, 'name', m.name)),
      type: m.type,
      account_number: m.account_number?.trim() || null,
      instructions: m.instructions ? String(translatedText(m.translations ?? null, lang, 'instructions', m.instructions)) : null,
    }));
  return { company_name: company.company_name, phone: company.phone ?? null, methods: shown };
}

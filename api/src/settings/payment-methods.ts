import type { Knex } from 'knex';
import { defaultGatewayOf, type PaymentMethodResponse } from '@app/contracts';
import { encodeId } from '../http/ids.ts';
import { PaymentMethod } from './settings.models.ts';

/** A payment method as the console and the storefront show it (no dealer reference). */
export const presentPaymentMethods = (methods: PaymentMethod[]): Omit<PaymentMethodResponse, 'dealer'>[] =>
  methods.map((m) => ({
    id: m.id,
    h_id: encodeId(m.id),
    name: m.name,
    type: m.type,
    gateway: m.gateway ?? defaultGatewayOf(m.type),
    account_number: m.account_number ?? null,
    instructions: m.instructions ?? null,
    logo: m.logo_path ?? null,
    status: m.status,
    sort_order: m.sort_order,
    dealer_id: m.dealer_id ?? null,
    translations: m.translations ?? null,
    created_at: m.created_at ?? null,
    updated_at: m.updated_at ?? null,
    deleted_at: m.deleted_at ?? null,
  }));

/**
 * Active methods, in their order: with a dealer, that dealer's own and the company's; without
 * one, the company's only.
 */
export async function activePaymentMethods(
  db: Knex | Knex.Transaction,
  dealerId: number | null,
  opts: { includeCompany?: boolean } = {},
): Promise<PaymentMethod[]> {
  const includeCompany = opts.includeCompany ?? true;
  return await PaymentMethod.query(db)
    .whereNull('deleted_at')
    .where('status', 'active')
    .where((w) => {
      if (dealerId) w.where('dealer_id', dealerId);
      if (includeCompany || !dealerId) w.orWhereNull('dealer_id');
    })
    .orderBy([{ column: 'sort_order' }, { column: 'id' }]);
}

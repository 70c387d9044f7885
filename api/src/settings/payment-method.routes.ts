import { z } from 'zod';
import {
  defaultGatewayOf,
  paymentMethodResponseSchema,
  paymentMethodSchema,
  updatePaymentMethodSchema,
  MANUAL_ONLY_TYPES,
  PAYMENT_GATEWAYS,
  PAYMENT_METHOD_TYPES,
  RESOURCES,
  STATUSES,
} from '@app/contracts';
import { resourceRoutes, filterQuery } from '../http/resource-routes.ts';
import type { ImageFields } from '../platform/resource-service.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { decodeId } from '../http/ids.ts';
import { fieldError } from '../http/errors.ts';
import { PaymentMethod } from './settings.models.ts';
import { dealerRefOf } from '../users/dealer-ref.ts';
import { activePaymentMethods, presentPaymentMethods } from './payment-methods.ts';

/**
 * /payment-methods: how customers pay (EVC Plus, Zaad, Sahal, eDahab, bank, cash), the company's
 * own (no dealer) or a dealer's. Dealers manage only their own (registry owner column).
 * GET /payment-methods/list: the active ones the caller may use, for pickers.
 */
export function paymentMethodRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  return resourceRoutes<PaymentMethod, typeof paymentMethodResponseSchema>(registry, storage, {
    def: RESOURCES['payment-methods'],
    model: PaymentMethod,
    schemas: {
      create: paymentMethodSchema,
      update: updatePaymentMethodSchema,
      filters: filterQuery({
        status: z.enum(STATUSES).optional(),
        type: z.enum(PAYMENT_METHOD_TYPES).optional(),
        gateway: z.enum(PAYMENT_GATEWAYS).optional(),
        dealer_id: z.string().optional(),
      }),
    },
    response: paymentMethodResponseSchema,
    list: {
      sortable: ['id', 'name', 'type', 'gateway', 'sort_order', 'status', 'created_at', 'updated_at', 'deleted_at'],
      defaultSort: { field: 'sort_order', order: 'asc' },
      filters: {
        status: (qb, v) => void qb.where('payment_methods.status', v),
        type: (qb, v) => void qb.where('payment_methods.type', v),
        gateway: (qb, v) => void qb.where('payment_methods.gateway', v),
        dealer_id: (qb, v) => void (v === 'global' ? qb.whereNull('payment_methods.dealer_id') : qb.where('payment_methods.dealer_id', decodeId(v) ?? 0)),
      },
    },
    graph: 'dealer',
    images: { logo: { folder: 'payment-methods', column: 'logo_path' } } satisfies ImageFields<(typeof RESOURCES)['payment-methods']>,
    // A new method without a gateway gets its type's; cash and bank are always manual (the schema refuses another named with them).
    create: async (ctx, input) =>
      PaymentMethod.query(ctx.db).insertAndFetch({
        ...input,
        gateway: MANUAL_ONLY_TYPES.has(input.type) ? 'manual' : (input.gateway ?? defaultGatewayOf(input.type)),
      }),
    update: async (ctx, row, input) => {
      // The number stays required when the type changes away from cash.
      const type = input.type ?? row.type;
      if (MANUAL_ONLY_TYPES.has(type)) {
        // Cash and bank are paid in person: a gateway named with them is refused, and whatever else is
        // sent (a new type alone, a name on a row written before the rule) leaves the method manual.
        if (input.gateway && input.gateway !== 'manual') throw fieldError('gateway', 'validation:payment_gateway_manual_only');
        if (row.gateway !== 'manual') input.gateway = 'manual';
      }
      const account = 'account_number' in input ? input.account_number : row.account_number;
      if (type !== 'cash' && !account) throw fieldError('account_number', 'validation:account_number_required');
      if (Object.keys(input).length) await PaymentMethod.query(ctx.db).patch(input).where('id', row.id);
    },
    snapshot: (m) => ({
      name: m.name,
      type: m.type,
      gateway: m.gateway,
      account_number: m.account_number,
      instructions: m.instructions,
      logo_path: m.logo_path,
      status: m.status,
      sort_order: m.sort_order,
      dealer_id: m.dealer_id,
      translations: m.translations ?? null,
    }),
    present: async (methods) => presentPaymentMethods(methods).map((m, i) => ({ ...m, dealer: dealerRefOf(methods[i].dealer) })),
    extraRoutes: (api) => {
      api.get(
        '/list',
        {
          summary: 'Active payment methods the caller may use (its own and the company ones)',
          anyPermission: [...RESOURCES['payment-methods'].permissions.view],
          response: z.array(paymentMethodResponseSchema.omit({ dealer: true })),
        },
        async (req, ctx) => {
          // A dealer gets its own and the company's; an admin the company's, or a named dealer's too.
          const asked = typeof req.query.dealer_id === 'string' ? decodeId(req.query.dealer_id) : null;
          const dealerId = ctx.actor.userType === 'dealer' ? ctx.actor.id : asked;
          return { data: presentPaymentMethods(await activePaymentMethods(ctx.db, dealerId)) };
        },
      );
    },
  });
}

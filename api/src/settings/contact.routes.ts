import { z } from 'zod';
import { contactResponseSchema, contactSchema, updateContactSchema, CONTACT_TYPES, RESOURCES, STATUSES } from '@app/contracts';
import { resourceRoutes, filterQuery } from '../http/resource-routes.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import type { FileStorage } from '../uploads/storage.ts';
import { decodeId, encodeId } from '../http/ids.ts';
import { fieldError } from '../http/errors.ts';
import { Contact } from './settings.models.ts';
import { dealerRefOf } from '../users/dealer-ref.ts';

/**
 * /contacts: phone, WhatsApp, email and address entries shown on storefronts; the company's
 * (no dealer) or a dealer's own. Dealers manage only their own (registry owner column).
 */
export function contactRoutes(registry: OpenApiRegistry, storage: FileStorage) {
  return resourceRoutes<Contact, typeof contactResponseSchema>(registry, storage, {
    def: RESOURCES.contacts,
    model: Contact,
    schemas: {
      create: contactSchema,
      update: updateContactSchema,
      filters: filterQuery({ status: z.enum(STATUSES).optional(), type: z.enum(CONTACT_TYPES).optional(), dealer_id: z.string().optional() }),
    },
    response: contactResponseSchema,
    list: {
      sortable: ['id', 'type', 'label', 'value', 'sort_order', 'status', 'created_at', 'updated_at', 'deleted_at'],
      defaultSort: { field: 'sort_order', order: 'asc' },
      filters: {
        status: (qb, v) => void qb.where('contacts.status', v),
        type: (qb, v) => void qb.where('contacts.type', v),
        dealer_id: (qb, v) => void (v === 'global' ? qb.whereNull('contacts.dealer_id') : qb.where('contacts.dealer_id', decodeId(v) ?? 0)),
      },
    },
    graph: 'dealer',
    update: async (ctx, row, input) => {
      // A change of type or value alone is checked against the other half as stored.
      const merged = contactSchema.safeParse({ type: input.type ?? row.type, value: input.value ?? row.value });
      if (!merged.success) throw fieldError('value', merged.error.issues[0].message);
      if (Object.keys(input).length) await Contact.query(ctx.db).patch(input).where('id', row.id);
    },
    snapshot: (c) => ({
      type: c.type,
      label: c.label,
      value: c.value,
      status: c.status,
      sort_order: c.sort_order,
      dealer_id: c.dealer_id,
      translations: c.translations ?? null,
    }),
    present: async (contacts) =>
      contacts.map((c) => ({
        id: c.id,
        h_id: encodeId(c.id),
        type: c.type,
        label: c.label ?? null,
        value: c.value,
        status: c.status,
        sort_order: c.sort_order,
        dealer_id: c.dealer_id ?? null,
        translations: c.translations ?? null,
        dealer: dealerRefOf(c.dealer),
        created_at: c.created_at ?? null,
        updated_at: c.updated_at ?? null,
        deleted_at: c.deleted_at ?? null,
      })),
  });
}

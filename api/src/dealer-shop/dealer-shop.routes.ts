import { SIGNED_IN, myShopResponseSchema, myShopSchema, type MyShopInput } from '@app/contracts';
import { ApiRouter } from '../http/api-router.ts';
import type { OpenApiRegistry } from '../openapi/registry.ts';
import { myShop, updateMyShop } from './dealer-shop.service.ts';

/** /my-shop: the signed-in dealer's own shop (its link, and the public face it edits). Anyone else: 403. */
export function dealerShopRoutes(registry: OpenApiRegistry) {
  const api = new ApiRouter(registry, '/my-shop', 'Users');
  api.get(
    '/',
    {
      summary: "The signed-in dealer's shop: its code and address, name, colour, description and contacts. A 403 for anyone but a dealer",
      permission: SIGNED_IN,
      response: myShopResponseSchema,
    },
    async (_req, ctx) => ({ data: await myShop(ctx) }),
  );
  api.patch(
    '/',
    {
      summary:
        "The signed-in dealer edits its shop's public face (each field optional; a blank text clears it). Logged; the storefront shows it at the next visit. A 403 for anyone but a dealer",
      permission: SIGNED_IN,
      body: myShopSchema,
      response: myShopResponseSchema,
      errors: { 422: 'A colour that is not #RRGGBB, an invalid email, phone or web address, or a text too long' },
    },
    async (req, ctx) => ({ message: 'api:dealer_shop.saved', data: await updateMyShop(ctx, req.body as MyShopInput) }),
  );
  return api;
}

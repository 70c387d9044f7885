/**
 * A dealer's shop address: the API's `url` (APP_URL set on the server) or, without it, the
 * console's own origin, since the storefront is served by the same server at /dealer/{CODE}.
 */
export function shopLink(shop: { dealer_code: string | null; url: string | null }, origin: string = window.location.origin): string | null {
  if (shop.url) return shop.url;
  if (!shop.dealer_code) return null;
  return `${origin.replace(/\/+$/, '')}/dealer/${encodeURIComponent(shop.dealer_code)}`;
}

/** #RRGGBB, as the API accepts it. */
export const isHexColour = (v: string) => /^#[0-9a-fA-F]{6}$/.test(v.trim());

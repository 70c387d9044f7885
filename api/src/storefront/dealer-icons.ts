import type { FileStorage } from '../uploads/storage.ts';
import type { StorefrontDealerRow } from './storefront.service.ts';
import { gradientPng } from '../demo/demo-images.ts';

/**
 * A dealer's app icon (192 or 512 px, square, PNG): its logo centred on its brand colour, made
 * with sharp and kept in memory per logo and size; without a logo (or if the logo cannot be
 * read), a plain brand-colour square.
 */
const cache = new Map<string, Buffer>();

export async function dealerIcon(dealer: StorefrontDealerRow, size: number, storage: FileStorage): Promise<Buffer> {
  const colour = dealer.brand_color && /^#[0-9a-f]{6}$/i.test(dealer.brand_color) ? dealer.brand_color : '#3B82F6';
  const key = `${dealer.logo_path ?? ''}|${colour}|${size}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let icon = gradientPng(size, size, colour, colour);
  if (dealer.logo_path?.startsWith('/storage/')) {
    try {
      const { default: sharp } = await import('sharp');
      const file = `${storage.root}/${dealer.logo_path.slice('/storage/'.length)}`;
      const inner = Math.round(size * 0.7);
      const logo = await sharp(file).resize(inner, inner, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } }).png().toBuffer();
      icon = await sharp({ create: { width: size, height: size, channels: 4, background: colour } }).composite([{ input: logo, gravity: 'centre' }]).png().toBuffer();
    } catch {
      // An unreadable logo keeps the plain icon.
    }
  }
  if (cache.size > 1000) cache.clear();
  cache.set(key, icon);
  return icon;
}

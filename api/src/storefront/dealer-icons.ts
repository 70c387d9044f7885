import type { FileStorage } from '../uploads/storage.ts';
import type { StorefrontDealerRow } from './storefront.service.ts';
import { gradientPng } from '../demo/demo-images.ts';

/**
 * A dealer's pictures, made with sharp and kept in memory per logo, name, colour and size:
 * - the app icon (192 or 512 px, square, PNG): its logo centred on its brand colour; without a
 *   logo (or if the logo cannot be read), the shop's initials on its brand colour, so a shop
 *   without a logo still installs as a recognisable app;
 * - the Open Graph image (1200x630 PNG, og:image of the shop's pages, the picture of a link shared
 *   in WhatsApp): the logo on a white card above the shop's name, or its initials, on the brand colour.
 * Text is drawn by sharp from SVG (librsvg with the system's fonts); should that fail, the plain
 * brand-colour picture stands in.
 */
const cache = new Map<string, Buffer>();
export const DEFAULT_BRAND = '#3B82F6';
export const OG_WIDTH = 1200;
export const OG_HEIGHT = 630;
const FONTS = "'DejaVu Sans', 'Liberation Sans', 'Noto Sans', 'Noto Sans Arabic', Arial, sans-serif";

export const brandColour = (dealer: StorefrontDealerRow) =>
  dealer.brand_color && /^#[0-9a-f]{6}$/i.test(dealer.brand_color) ? dealer.brand_color : DEFAULT_BRAND;
const shopName = (dealer: StorefrontDealerRow) => (dealer.company_name || dealer.name || dealer.dealer_code).trim();

/** "Demo Telecom Dealer" -> "DT"; "Hodan" -> "HO"; one letter per word, at most two (any script). */
export function initialsOf(name: string): string {
  const words = name
    .trim()
    .split(/[\s\-_.&]+/u)
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (!words.length) return '?';
  const first = (w: string) => [...w.replace(/^[^\p{L}\p{N}]+/u, '')][0] ?? '';
  const letters = words.length > 1 ? first(words[0]) + first(words[1]) : [...words[0].replace(/[^\p{L}\p{N}]/gu, '')].slice(0, 2).join('');
  return letters.toLocaleUpperCase() || '?';
}

/** White or near-black, whichever reads better on the colour (WCAG relative luminance). */
function inkOn(hex: string): string {
  const lin = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const l = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? '#ffffff' : '#111827';
}

const xml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

async function logoOf(dealer: StorefrontDealerRow, storage: FileStorage, box: number): Promise<Buffer | null> {
  if (!dealer.logo_path?.startsWith('/storage/')) return null;
  try {
    const { default: sharp } = await import('sharp');
    const file = `${storage.root}/${dealer.logo_path.slice('/storage/'.length)}`;
    return await sharp(file)
      .resize(box, box, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
      .png()
      .toBuffer();
  } catch {
    return null; // an unreadable logo: the initials instead
  }
}

async function remember(key: string, make: () => Promise<Buffer>): Promise<Buffer> {
  const hit = cache.get(key);
  if (hit) return hit;
  const png = await make();
  if (cache.size > 1000) cache.clear();
  cache.set(key, png);
  return png;
}

export async function dealerIcon(dealer: StorefrontDealerRow, size: number, storage: FileStorage): Promise<Buffer> {
  const colour = brandColour(dealer);
  const name = shopName(dealer);
  return remember(`icon|${dealer.logo_path ?? ''}|${name}|${colour}|${size}`, async () => {
    try {
      const { default: sharp } = await import('sharp');
      const logo = await logoOf(dealer, storage, Math.round(size * 0.7));
      if (logo)
        return await sharp({ create: { width: size, height: size, channels: 4, background: colour } })
          .composite([{ input: logo, gravity: 'centre' }])
          .png()
          .toBuffer();
      // The initials inside the maskable safe zone (the middle 80%): a launcher's mask never cuts them.
      const initials = initialsOf(name);
      const fontSize = Math.round(size * (initials.length > 1 ? 0.36 : 0.46));
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">
  <rect width="100%" height="100%" fill="${colour}"/>
  <text x="50%" y="50%" dy="0.35em" text-anchor="middle" font-family="${FONTS}" font-weight="700" font-size="${fontSize}" fill="${inkOn(colour)}">${xml(initials)}</text>
</svg>`;
      return await sharp(Buffer.from(svg)).png().toBuffer();
    } catch {
      return gradientPng(size, size, colour, colour);
    }
  });
}

/** The shop's name on as few lines as fit (at most two, the rest cut with an ellipsis). */
function lines(name: string, perLine: number): string[] {
  const words = name.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  let line = '';
  for (const w of words) {
    if (!line) line = w;
    else if ((line + ' ' + w).length <= perLine) line += ' ' + w;
    else {
      out.push(line);
      line = w;
    }
  }
  if (line) out.push(line);
  const cut = out.slice(0, 2).map((l) => (l.length > perLine ? `${l.slice(0, perLine - 1)}…` : l));
  if (out.length > 2) cut[1] = `${cut[1].slice(0, perLine - 1)}…`;
  return cut;
}

export async function dealerOgImage(dealer: StorefrontDealerRow, storage: FileStorage): Promise<Buffer> {
  const colour = brandColour(dealer);
  const name = shopName(dealer);
  return remember(`og|${dealer.logo_path ?? ''}|${name}|${colour}`, async () => {
    try {
      const { default: sharp } = await import('sharp');
      const ink = inkOn(colour);
      const card = 300;
      const logo = await logoOf(dealer, storage, card - 48);
      const text = lines(name, 28);
      const fontSize = text.length > 1 ? 60 : 72;
      // The card (logo or initials) above the name, the whole block centred.
      const block = card + 48 + text.length * fontSize * 1.15;
      const top = Math.round((OG_HEIGHT - block) / 2);
      const cardX = (OG_WIDTH - card) / 2;
      const initials = initialsOf(name);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${OG_WIDTH}" height="${OG_HEIGHT}" viewBox="0 0 ${OG_WIDTH} ${OG_HEIGHT}">
  <rect width="100%" height="100%" fill="${colour}"/>
  <rect x="${cardX}" y="${top}" width="${card}" height="${card}" rx="48" fill="#ffffff"/>
  ${logo ? '' : `<text x="50%" y="${top + card / 2}" dy="0.35em" text-anchor="middle" font-family="${FONTS}" font-weight="700" font-size="${initials.length > 1 ? 120 : 150}" fill="${ink === '#ffffff' ? colour : ink}">${xml(initials)}</text>`}
  ${text.map((l, i) => `<text x="50%" y="${top + card + 48 + fontSize * (i + 0.85)}" text-anchor="middle" font-family="${FONTS}" font-weight="700" font-size="${fontSize}" fill="${ink}">${xml(l)}</text>`).join('\n  ')}
</svg>`;
      const base = sharp(Buffer.from(svg));
      const composed = logo ? base.composite([{ input: logo, top: top + 24, left: cardX + 24 }]) : base;
      return await composed.png().toBuffer();
    } catch {
      return gradientPng(OG_WIDTH, OG_HEIGHT, colour, colour);
    }
  });
}

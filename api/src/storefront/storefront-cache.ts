import crypto from 'node:crypto';

/**
 * The storefront reads' in-process cache (docs/decisions.md, "Catalogue, settings and storefront reads"): every visit
 * asks for the same few answers, which change only when someone edits the catalogue. An entry
 * holds the serialised body and its ETag.
 *
 * Invalidation: every committed change clears it (recordActivity schedules clear() after the
 * commit). A generation number keeps a read that began before a change from storing what it
 * read after the clear. Other processes, and edits made outside the API, are bounded by the TTL.
 */
export interface CachedAnswer {
  body: string;
  etag: string;
}

const TTL_MS = 30_000;
const MAX_ENTRIES = 5_000;

class StorefrontCache {
  private generation = 0;
  private entries = new Map<string, { generation: number; at: number; answer: CachedAnswer }>();
  private listeners: (() => void)[] = [];

  async get(key: string, load: () => Promise<unknown>): Promise<CachedAnswer> {
    const hit = this.entries.get(key);
    if (hit && hit.generation === this.generation && Date.now() - hit.at < TTL_MS) return hit.answer;
    const generation = this.generation;
    const body = JSON.stringify(await load());
    const answer = { body, etag: `W/"${crypto.createHash('sha1').update(body).digest('base64url')}"` };
    if (generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { generation, at: Date.now(), answer });
    }
    return answer;
  }

  /** The fresh cached answer for a key, or undefined (no loading). */
  peek(key: string): CachedAnswer | undefined {
    const hit = this.entries.get(key);
    return hit && hit.generation === this.generation && Date.now() - hit.at < TTL_MS ? hit.answer : undefined;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    for (const listener of this.listeners) listener();
  }

  /** Other in-process copies of shop data (a purchase's offer) are dropped with these answers. */
  onClear(listener: () => void): void {
    this.listeners.push(listener);
  }
}

export const storefrontCache = new StorefrontCache();

/**
 * The cache key of a shop's read: one entry per shop whatever the letter case of its code, and per
 * language when the answer is translated (`lng`: en, ae, so), so one language's answer is never
 * served to another. Without `lng`, the answer as typed (no translation applied).
 */
export const shopCacheKey = (name: string, code: string, lng?: string) => (lng ? `${name}:${code.toUpperCase()}:${lng}` : `${name}:${code.toUpperCase()}`);

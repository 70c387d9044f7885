import { encodeId } from '../http/ids.ts';

/** How an answer names a dealer it refers to (a banner's, a wallet's, a recharge's ...): one shape everywhere. */
export function dealerRef(id: number, name: string, dealerCode: string | null | undefined) {
  return { id, h_id: encodeId(id), name, dealer_code: dealerCode ?? null };
}

/** The same, for a loaded user record (or none). */
export const dealerRefOf = (u: { id: number; name: string; dealer_code?: string | null } | null | undefined) =>
  u ? dealerRef(u.id, u.name, u.dealer_code) : null;

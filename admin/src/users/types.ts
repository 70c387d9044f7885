import type { SessionUser } from '../providers/session';

export type UserType = 'admin' | 'dealer' | 'user';

export interface DealerDetails {
  brand_color?: string | null;
  company_name?: string | null;
  description?: string | null;
  website?: string | null;
  contact_email?: string | null;
  contact_phone?: string | null;
  pricing_model?: 'cost' | 'profit' | null;
  logo_path?: string | null;
  /** company_name and description per language ({"ae": {"description": "…"}}); null: none. */
  translations?: Record<string, Record<string, string>> | null;
}

export interface UserRecord extends SessionUser {
  dealer_details?: DealerDetails | null;
  created_at?: string;
  deleted_at?: string | null;
}

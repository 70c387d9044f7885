import { useEffect, useState } from 'react';

/**
 * The storefront routes (docs/product.md section 2): /dealer/{code}, .../provider/{id},
 * .../provider/{id}/category/{id}, and an order's page .../order/{reference} (bookmarked or shared
 * after a purchase). Plain history navigation; no router library on a phone's first load.
 */
export interface Route {
  code: string;
  providerId: number | null;
  categoryId: number | null;
  /** The order page's reference (RC…), upper-cased; null elsewhere. */
  order?: string | null;
}

export function parseRoute(pathname: string): Route | null {
  const m = /^\/dealer\/([^/]*)(?:\/provider\/(\d+)(?:\/category\/(\d+))?|\/order\/([A-Za-z0-9]{1,40}))?\/?$/.exec(pathname);
  if (!m) return null;
  let code = '';
  try {
    code = decodeURIComponent(m[1]).trim();
  } catch {
    code = '';
  }
  return { code, providerId: m[2] ? Number(m[2]) : null, categoryId: m[3] ? Number(m[3]) : null, order: m[4] ? m[4].toUpperCase() : null };
}

export const pathOf = (r: Route) =>
  `/dealer/${encodeURIComponent(r.code)}${r.order ? `/order/${encodeURIComponent(r.order)}` : r.providerId ? `/provider/${r.providerId}${r.categoryId ? `/category/${r.categoryId}` : ''}` : ''}`;

/** The order page of a reference in a shop. */
export const orderPath = (code: string, reference: string) => pathOf({ code, providerId: null, categoryId: null, order: reference });

export function navigate(path: string) {
  if (path === location.pathname) return;
  history.pushState(null, '', path);
  window.dispatchEvent(new PopStateEvent('popstate'));
  window.scrollTo(0, 0);
}

export function useLocation() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const on = () => setPath(location.pathname);
    window.addEventListener('popstate', on);
    return () => window.removeEventListener('popstate', on);
  }, []);
  return path;
}

/** A link that navigates without a reload (and keeps the browser's own behaviour for new tabs). */
export function onLinkClick(e: React.MouseEvent<HTMLAnchorElement>, path: string) {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(path);
}

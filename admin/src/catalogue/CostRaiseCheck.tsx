import { useRef, useState } from 'react';
import { Confirm, useTranslate, type RaRecord } from 'react-admin';
import { useLocation } from 'react-router';
import { Alert, Box, Chip, Tooltip, Typography } from '@mui/material';
import type { BundleResponse, ShopBelowCost, ShopsBelowCostResponse } from '@app/contracts';
import { apiFetch } from '../providers/http';

/** "Cheap Shop (CHEAP) at 1.20, Corner (CRN) at 1.25": the shops a cost leaves below it, with their prices. */
export function shopList(shops: ShopBelowCost[], translate: (key: string, opts?: object) => string): string {
  return shops
    .map((s) =>
      translate('catalogue.bundle.shop_at_price', {
        // Isolated left to right (U+2066..U+2069): a code and a price keep their order in Arabic text.
        name: s.dealer_code ? `${s.name} (\u2066${s.dealer_code}\u2069)` : s.name,
        price: `\u2066${s.selling_price}\u2069`,
      }),
    )
    .join(translate('catalogue.bundle.list_separator'));
}

/** A typed price as a number of the API's two decimals (NaN when it is none). */
const priceOf = (v: unknown) => (v === undefined || v === null || String(v).trim() === '' ? NaN : Number(String(v).trim()));

/**
 * A new cost takes the bundle off every shop that priced it below that cost (its storefront stops
 * selling it; the dealer's switch stays on). Before such a save the admin is asked, naming the
 * shops (GET /bundles/{id}/shops-below-cost); after it, the API's answer (`off_sale_shops`) is said.
 */
export function useCostRaiseCheck() {
  const translate = useTranslate();
  const [asking, setAsking] = useState<ShopBelowCost[] | null>(null);
  const answer = useRef<(yes: boolean) => void>(() => undefined);

  const beforeSave = async (data: Record<string, unknown>, record: RaRecord | undefined): Promise<boolean> => {
    const bundle = record as BundleResponse | undefined;
    const cost = priceOf(data.cost_price);
    // Only a raised cost of a saved bundle can leave shops below it.
    if (!bundle || bundle.cost_price === undefined || !(cost > priceOf(bundle.cost_price))) return true;
    let shops: ShopBelowCost[];
    try {
      const query: Record<string, string> = { cost_price: String(data.cost_price).trim() };
      if (data.selling_price !== undefined && String(data.selling_price).trim() !== '') query.selling_price = String(data.selling_price).trim();
      shops = (await apiFetch<ShopsBelowCostResponse>(`/bundles/${encodeURIComponent(String(bundle.h_id ?? bundle.id))}/shops-below-cost`, { query })).data
        .shops;
    } catch {
      // The question could not be asked (a price the API refuses): the save itself says what is wrong,
      // and its answer names any shop it took the bundle off.
      return true;
    }
    if (!shops.length) return true;
    setAsking(shops);
    return new Promise<boolean>((resolve) => {
      answer.current = (yes) => {
        setAsking(null);
        resolve(yes);
      };
    });
  };

  // Said above the list until the admin closes it (a toast would pass before the shops are read).
  // Carried in the list's location state: closing the form changes the path, and the layout
  // mounts the page anew at each path (Layout.tsx), which would lose a state of the page's own.
  // The page's own state says it at once, and stays when the page is not mounted anew.
  const location = useLocation();
  const [dismissed, setDismissed] = useState(false);
  const [saved, setSaved] = useState<ShopBelowCost[]>([]);
  const onSaved = (_what: 'created' | 'updated', record: RaRecord) => setSaved((record as BundleResponse).off_sale_shops ?? []);
  const offSale = saved.length ? saved : ((location.state as { offSale?: ShopBelowCost[] } | null)?.offSale ?? []);
  const stateAfterUpdate = (record: RaRecord) => {
    const shops = (record as BundleResponse).off_sale_shops ?? [];
    return shops.length ? { offSale: shops } : undefined;
  };
  const notice =
    offSale.length && !dismissed ? (
      <Alert severity="warning" role="status" onClose={() => setDismissed(true)} sx={{ mb: 2 }}>
        {translate('catalogue.bundle.off_sale_saved', { smart_count: offSale.length, shops: shopList(offSale, translate) })}
      </Alert>
    ) : null;

  const dialog = (
    <Confirm
      isOpen={asking !== null}
      title="catalogue.bundle.off_sale_confirm_title"
      titleTranslateOptions={{ smart_count: asking?.length ?? 0 }}
      content={
        <Box>
          <Typography sx={{ mb: 1 }}>{translate('catalogue.bundle.off_sale_confirm', { smart_count: asking?.length ?? 0 })}</Typography>
          <Box component="ul" sx={{ m: 0, ps: 3 }}>
            {(asking ?? []).map((s) => (
              <li key={s.id}>{shopList([s], translate)}</li>
            ))}
          </Box>
        </Box>
      }
      confirm="catalogue.bundle.off_sale_confirm_save"
      confirmColor="warning"
      onConfirm={() => answer.current(true)}
      onClose={() => answer.current(false)}
    />
  );
  return { beforeSave, onSaved, stateAfterUpdate, dialog, notice };
}

/** In the list: a bundle some shops still offer below its cost ("Off sale in 2 shops", the shops on hover). */
export function OffSaleChip({ record }: { record: BundleResponse }) {
  const translate = useTranslate();
  const shops = record.off_sale_shops ?? [];
  if (!shops.length) return null;
  return (
    <Tooltip title={shopList(shops, translate)}>
      <Chip size="small" color="warning" label={translate('catalogue.bundle.off_sale_chip', { smart_count: shops.length })} />
    </Tooltip>
  );
}

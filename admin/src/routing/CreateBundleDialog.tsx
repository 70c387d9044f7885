import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { useGetList, useTranslate } from 'react-admin';
import { Alert, Button, Dialog, DialogActions, DialogContent, DialogTitle, MenuItem, Stack, TextField, Typography } from '@mui/material';
import type { CategoryResponse, ProviderResponse } from '@app/contracts';
import { centsText, moneyText, type AggregatorProduct } from './types';

/** What the bundle form carries from the catalogue, so that once the bundle exists it can be put on a route (RouteMappingOffer). */
export interface RouteOffer {
  aggregator: AggregatorProduct['aggregator'];
  operator_id: string;
  product_id: string;
  product_name: string;
}

/** The bundle form's starting values from an aggregator's product: its name, our cost (wholesale, else its amount) and its id as the product code. */
export function bundleFromProduct(p: AggregatorProduct) {
  return { name: p.name, cost_price: centsText(p.wholesale ?? p.amount), operator_product_code: p.product_id };
}

/**
 * "Create bundle" on an aggregator's product: choose the operator (the one whose aggregator operator
 * id is the product's, when there is one) and its category, then the console's own bundle form
 * opens there (/internet-providers/{id}/categories/{categoryId}/bundles/create), filled in through
 * react-admin's `state: { record }`; `routeOffer` rides along for the offer made once it is created.
 */
export function CreateBundleDialog({ product, onClose }: { product: AggregatorProduct | null; onClose: () => void }) {
  const translate = useTranslate();
  const navigate = useNavigate();
  const open = !!product;
  const { data: providers } = useGetList<ProviderResponse>(
    'internet-providers',
    { pagination: { page: 1, perPage: 100 }, sort: { field: 'sort_order', order: 'ASC' } },
    { enabled: open },
  );
  const [providerId, setProviderId] = useState<string>('');
  const [categoryId, setCategoryId] = useState<string>('');
  // The operator whose aggregator id is the product's is the likely one.
  useEffect(() => {
    if (!product) return;
    const likely = providers?.find((p) => p.external_operator_id === product.operator_id);
    setProviderId(likely ? String(likely.id) : '');
    setCategoryId('');
  }, [product, providers]);
  const { data: categories, isPending: categoriesPending } = useGetList<CategoryResponse>(
    'internet-categories',
    { filter: { provider_id: providerId }, pagination: { page: 1, perPage: 100 }, sort: { field: 'sort_order', order: 'ASC' } },
    { enabled: open && !!providerId },
  );
  useEffect(() => {
    if (categories?.length === 1) setCategoryId(String(categories[0].id));
  }, [categories]);
  if (!product) return null;
  const go = () => {
    const offer: RouteOffer = { aggregator: product.aggregator, operator_id: product.operator_id, product_id: product.product_id, product_name: product.name };
    navigate(`/internet-providers/${providerId}/categories/${categoryId}/bundles/create`, { state: { record: bundleFromProduct(product), routeOffer: offer } });
  };
  const cost = moneyText(product.wholesale ?? product.amount, product.currency);
  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="xs" aria-labelledby="create-bundle-title">
      <DialogTitle id="create-bundle-title">{translate('aggregator_catalogue.create_title', { name: product.name })}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Typography variant="body2" color="text.secondary">
            {translate('aggregator_catalogue.create_help', { cost, product: product.product_id })}
          </Typography>
          <TextField
            select
            label={translate('aggregator_catalogue.operator')}
            value={providerId}
            onChange={(e) => (setProviderId(e.target.value), setCategoryId(''))}
            fullWidth
          >
            {(providers ?? []).map((p) => (
              <MenuItem key={p.id} value={String(p.id)}>
                {p.name}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            label={translate('aggregator_catalogue.category')}
            value={categoryId}
            onChange={(e) => setCategoryId(e.target.value)}
            disabled={!providerId}
            fullWidth
          >
            {(categories ?? []).map((c) => (
              <MenuItem key={c.id} value={String(c.id)}>
                {c.name}
              </MenuItem>
            ))}
          </TextField>
          {providerId && !categoriesPending && categories?.length === 0 && <Alert severity="info">{translate('aggregator_catalogue.no_categories')}</Alert>}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('common.cancel')}</Button>
        <Button variant="contained" onClick={go} disabled={!providerId || !categoryId}>
          {translate('aggregator_catalogue.continue')}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

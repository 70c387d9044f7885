import { useEffect, useState } from 'react';
import { useNotify, useTranslate } from 'react-admin';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Box, Button, Card, CardContent, CardHeader, Grid, InputAdornment, Stack, TextField, Typography } from '@mui/material';
import CopyIcon from '@mui/icons-material/ContentCopyOutlined';
import OpenIcon from '@mui/icons-material/OpenInNewOutlined';
import type { MyShopResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { Ltr, ltr } from '../common/Ltr';
import { FullPageLoader } from '../common/FullPageLoader';
import { fieldErrors, serverMessage } from '../providers/errors';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { ShopQrCode } from './ShopQrCode';
import { isHexColour, shopLink } from './shopLink';

const MY_SHOP_KEY = ['my-shop'] as const;
const FIELDS = ['company_name', 'brand_color', 'description', 'contact_email', 'contact_phone', 'website'] as const;
type Field = (typeof FIELDS)[number];
type Values = Record<Field, string>;

const valuesOf = (shop: MyShopResponse): Values => ({
  company_name: shop.company_name ?? '',
  brand_color: shop.brand_color || '#000000',
  description: shop.description ?? '',
  contact_email: shop.contact_email ?? '',
  contact_phone: shop.contact_phone ?? '',
  website: shop.website ?? '',
});

/**
 * /my-shop (dealers): the shop's public link with Copy and Open, its QR code (PNG to download),
 * and the shop's public face the dealer edits itself: name, colour, description and contacts
 * (GET/PATCH /my-shop). Staff edit a dealer's shop through the user form.
 */
export default function MyShopPage() {
  const translate = useTranslate();
  const dataProvider = useConsoleDataProvider();
  const {
    data: shop,
    error,
    isPending,
  } = useQuery({
    queryKey: MY_SHOP_KEY,
    queryFn: async () => (await dataProvider.myShop<MyShopResponse>()).data,
    retry: false,
  });
  // A 401: the session ended and the sign-in page is on its way.
  if (error && !shop && (error as { status?: number }).status !== 401) return <Alert severity="error">{serverMessage(error)}</Alert>;
  if (isPending || !shop) return <FullPageLoader />;
  return (
    <>
      <PageTitle title={translate('menu.my_shop')} />
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 5 }}>
          <ShopLinkCard shop={shop} />
        </Grid>
        <Grid size={{ xs: 12, md: 7 }}>
          <ShopFaceForm shop={shop} />
        </Grid>
      </Grid>
    </>
  );
}

function ShopLinkCard({ shop }: { shop: MyShopResponse }) {
  const translate = useTranslate();
  const notify = useNotify();
  const link = shopLink(shop);
  const copy = async () => {
    if (!link) return;
    try {
      await navigator.clipboard.writeText(link);
      notify('my_shop.copied', { type: 'success' });
    } catch {
      // No clipboard (an http origin, a refused permission): the link stays selectable.
      notify('my_shop.copy_failed', { type: 'warning' });
    }
  };
  return (
    <Card sx={{ height: '100%' }}>
      <CardHeader title={translate('my_shop.link_title')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
      <CardContent sx={{ pt: 0 }}>
        {!link ? (
          <Alert severity="info">{translate('my_shop.no_code')}</Alert>
        ) : (
          <Stack spacing={2}>
            <Typography variant="body2" color="text.secondary">
              {translate('my_shop.link_help')}
            </Typography>
            {shop.status !== 'active' && <Alert severity="warning">{translate('my_shop.closed')}</Alert>}
            <Box
              data-testid="shop-link"
              sx={{ p: 1.5, borderRadius: 1, bgcolor: 'action.hover', fontFamily: 'monospace', fontSize: 14, overflowWrap: 'anywhere', userSelect: 'all' }}
            >
              <Ltr>{link}</Ltr>
            </Box>
            <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
              <Button variant="contained" startIcon={<CopyIcon />} onClick={copy}>
                {translate('my_shop.copy')}
              </Button>
              <Button variant="outlined" startIcon={<OpenIcon />} href={link} target="_blank" rel="noopener noreferrer">
                {translate('my_shop.open')}
              </Button>
            </Stack>
            <ShopQrCode link={link} code={shop.dealer_code ?? 'shop'} />
          </Stack>
        )}
      </CardContent>
    </Card>
  );
}

function ShopFaceForm({ shop }: { shop: MyShopResponse }) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<Values>(() => valuesOf(shop));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [general, setGeneral] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => setValues(valuesOf(shop)), [shop]);
  const set = (f: Field, v: string) => {
    setValues((old) => ({ ...old, [f]: v }));
    setErrors((old) => ({ ...old, [f]: undefined }));
  };
  const colourOk = isHexColour(values.brand_color);

  const save = async (e: React.FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (!colourOk) {
      setErrors({ brand_color: translate('validation:brand_color_invalid') });
      return;
    }
    setBusy(true);
    setGeneral(null);
    try {
      const res = await dataProvider.saveMyShop<MyShopResponse>({ data: { ...values, brand_color: values.brand_color.trim() } });
      notify(res.message ?? 'ra.notification.updated', { type: 'success' });
      setErrors({});
      queryClient.setQueryData(MY_SHOP_KEY, res.data);
    } catch (err) {
      const fields = fieldErrors(err);
      setErrors(Object.fromEntries(Object.entries(fields).filter(([k]) => (FIELDS as readonly string[]).includes(k))));
      const others = Object.entries(fields).filter(([k]) => !(FIELDS as readonly string[]).includes(k));
      setGeneral(others.length ? others.map(([, m]) => m).join(' ') : Object.keys(fields).length ? null : serverMessage(err));
    } finally {
      setBusy(false);
    }
  };

  const text = (f: Field, { helperText, ...extra }: Partial<React.ComponentProps<typeof TextField>> = {}) => (
    <TextField
      id={`shop-${f}`}
      label={translate(`my_shop.fields.${f}`)}
      value={values[f]}
      onChange={(ev) => set(f, ev.target.value)}
      error={!!errors[f]}
      helperText={errors[f] ?? helperText}
      fullWidth
      {...extra}
    />
  );

  return (
    <Card component="form" noValidate onSubmit={save} aria-labelledby="shop-face-title">
      <CardHeader
        title={translate('my_shop.face_title')}
        subheader={translate('my_shop.face_help')}
        slotProps={{ title: { component: 'h2', variant: 'h6', id: 'shop-face-title' } }}
      />
      <CardContent sx={{ pt: 0 }}>
        <Stack spacing={2}>
          {general && (
            <Alert severity="error" role="alert">
              {general}
            </Alert>
          )}
          {text('company_name', { slotProps: { htmlInput: { maxLength: 255, dir: 'auto' } } })}
          <Stack direction="row" sx={{ gap: 1.5, alignItems: 'flex-start' }}>
            <Box
              component="input"
              type="color"
              aria-label={translate('my_shop.colour_picker')}
              value={colourOk ? values.brand_color : '#000000'}
              onChange={(ev: React.ChangeEvent<HTMLInputElement>) => set('brand_color', ev.target.value)}
              sx={{
                width: 56,
                height: 56,
                p: 0.5,
                border: 1,
                borderColor: 'divider',
                borderRadius: 1,
                bgcolor: 'background.paper',
                cursor: 'pointer',
                flexShrink: 0,
              }}
            />
            {text('brand_color', {
              helperText: translate('my_shop.colour_help', { example: ltr('#1E88E5') }),
              slotProps: {
                htmlInput: { maxLength: 7, dir: 'ltr', spellCheck: false, autoCapitalize: 'off' },
                input: { startAdornment: <InputAdornment position="start">{colourOk ? <Swatch colour={values.brand_color} /> : null}</InputAdornment> },
              },
            })}
          </Stack>
          {text('description', { multiline: true, minRows: 3, slotProps: { htmlInput: { maxLength: 2000, dir: 'auto' } } })}
          {text('contact_email', { type: 'email', slotProps: { htmlInput: { dir: 'ltr', inputMode: 'email' } } })}
          {text('contact_phone', { type: 'tel', slotProps: { htmlInput: { dir: 'ltr', inputMode: 'tel' } } })}
          {text('website', {
            type: 'url',
            helperText: translate('my_shop.website_help', { prefix: ltr('https://') }),
            slotProps: { htmlInput: { dir: 'ltr', inputMode: 'url' } },
          })}
          <Box>
            <Button type="submit" variant="contained" disabled={busy}>
              {translate('my_shop.save')}
            </Button>
          </Box>
        </Stack>
      </CardContent>
    </Card>
  );
}

function Swatch({ colour }: { colour: string }) {
  return (
    <Box
      component="span"
      aria-hidden
      sx={{ display: 'inline-block', width: 16, height: 16, borderRadius: 0.5, bgcolor: colour, border: 1, borderColor: 'divider' }}
    />
  );
}

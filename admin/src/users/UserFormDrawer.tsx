import { useEffect, useMemo, useRef, useState } from 'react';
import { Controller, useFormContext, useFormState, type Resolver } from 'react-hook-form';
import { useQueryClient } from '@tanstack/react-query';
import { CreateBase, EditBase, Form, useDataProvider, useNotify, useSaveContext, useTranslate } from 'react-admin';
import { Box, Button, Divider, Drawer, Grid, IconButton, InputAdornment, MenuItem, Stack, TextField, Typography } from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import KeyIcon from '@mui/icons-material/Key';
import { createUserSchema, updateUserSchema, PRICING_MODELS } from '@app/contracts';
import { STATUSES } from '@app/contracts';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { muiRegister, sharedResolver } from '../common/zodForm';
import { ErrorBanner, SaveCancelButtons } from '../common/FormParts';
import { PasswordField } from '../common/PasswordField';
import { generatePassword } from './password';
import { splitServerErrors } from './serverErrors';
import { TranslationFields, translationPaths } from '../common/TranslationFields';
import { RolePicker } from './RolePicker';
import { LogoUpload } from './LogoUpload';
import { StarterPaymentMethods, type StarterPaymentMethodsValue } from './StarterPaymentMethods';
import type { UserRecord, UserType } from './types';

export const SLIDE_OVER_WIDTH = 800;
export const CLOSE_MS = 300;

export interface UserFormValues {
  name: string;
  email: string;
  password: string;
  password_confirmation: string;
  phone: string;
  address: string;
  dealer_code: string;
  status: 'active' | 'inactive';
  user_type: UserType;
  role_id: number | null;
  brand_color: string;
  company_name: string;
  description: string;
  website: string;
  contact_email: string;
  contact_phone: string;
  pricing_model: 'cost' | 'profit';
  /** New dealers only: the company's catalogue switched on at cost + this margin ('' = an empty shop). */
  starter_margin: string;
  /** New "Cost + Profit" dealers only: company payment methods to copy, each with the shop's own number. */
  starter_payment_methods: StarterPaymentMethodsValue;
  /** The company name and description per language (translations.ae.description ...). */
  translations: Record<string, Record<string, string>>;
}

const FIELDS = Object.keys({
  name: 1, email: 1, password: 1, password_confirmation: 1, phone: 1, address: 1, dealer_code: 1, status: 1, user_type: 1, role_id: 1,
  brand_color: 1, company_name: 1, description: 1, website: 1, contact_email: 1, contact_phone: 1, pricing_model: 1, starter_margin: 1, starter_payment_methods: 1, translations: 1,
} satisfies Record<keyof UserFormValues, 1>) as (keyof UserFormValues)[];

export function initialValues(userType: UserType, record?: UserRecord | null): UserFormValues {
  const d = record?.dealer_details ?? null;
  return {
    name: record?.name ?? '',
    email: record?.email ?? '',
    password: '',
    password_confirmation: '',
    phone: record?.phone ?? '',
    address: record?.address ?? '',
    dealer_code: record?.dealer_code ?? '',
    status: (record?.status as 'active' | 'inactive') ?? 'active',
    user_type: (record?.user_type as UserType) ?? userType,
    role_id: record?.roles?.[0]?.id ?? null,
    brand_color: d?.brand_color ?? '#000000',
    company_name: d?.company_name ?? '',
    description: d?.description ?? '',
    website: d?.website ?? '',
    contact_email: d?.contact_email ?? '',
    contact_phone: d?.contact_phone ?? '',
    pricing_model: (d?.pricing_model as 'cost' | 'profit') ?? 'cost',
    starter_margin: '',
    starter_payment_methods: {},
    translations: d?.translations ?? {},
  };
}

/** The payload the API gets: dealer fields only for dealers, the role only for admins, no blank password on edit. */
export function toPayload(values: UserFormValues, isEdit: boolean): Record<string, unknown> {
  const dealer = values.user_type === 'dealer';
  const out: Record<string, unknown> = {
    name: values.name,
    email: values.email,
    phone: values.phone,
    address: values.address,
    status: values.status,
    user_type: values.user_type,
  };
  if (!isEdit || values.password) {
    out.password = values.password;
    out.password_confirmation = values.password_confirmation;
  }
  if (dealer) {
    Object.assign(out, {
      dealer_code: values.dealer_code,
      brand_color: values.brand_color,
      company_name: values.company_name,
      description: values.description,
      website: values.website,
      contact_email: values.contact_email,
      contact_phone: values.contact_phone,
      pricing_model: values.pricing_model,
      translations: values.translations,
    });
    if (!isEdit && values.starter_margin.trim() !== '') out.starter_margin = values.starter_margin.trim();
    if (!isEdit && values.pricing_model === 'cost' && Object.keys(values.starter_payment_methods ?? {}).length) out.starter_payment_methods = values.starter_payment_methods;
  } else {
    out.role_id = values.role_id;
  }
  return out;
}

/**
 * The user form as an 800 px right-side slide-over (docs/product.md section 2): titles New Admin /
 * New Dealer / New User / Edit <type>, Cancel and Save/Update ('Saving...'/'Updating...'),
 * the shared zod rules, server errors on their fields, the logo area or the Error banner.
 */
export function UserFormDrawer({ open, userType, record, onClose }: { open: boolean; userType: UserType; record: UserRecord | null; onClose: () => void }) {
  const notify = useNotify();
  const queryClient = useQueryClient();
  const isEdit = !!record;
  const [logo, setLogo] = useState<File | null>(null);
  const [logoError, setLogoError] = useState<string | undefined>();
  const [banner, setBanner] = useState<string | undefined>();
  // The chosen file, for the resolver and transform below (both run outside React's render).
  const logoRef = useRef<File | null>(null);
  logoRef.current = logo;

  useEffect(() => {
    if (open) {
      setLogo(null);
      setLogoError(undefined);
      setBanner(undefined);
    }
  }, [open, record]);

  const resolver = useMemo(() => {
    const shared = sharedResolver<UserFormValues>(isEdit ? updateUserSchema : createUserSchema);
    // A new dealer needs a logo: said on Save with the other messages, before any call.
    return (async (values, context, options) => {
      const result = await shared(values, context, options);
      if (isEdit || values.user_type !== 'dealer' || logoRef.current) return result;
      return { values: {}, errors: { ...result.errors, dealer_logo: { type: 'required', message: 'validation:dealer_logo_required' } } };
    }) as Resolver<UserFormValues>;
  }, [isEdit]);

  // What the API gets: dealer fields only for dealers, the role only when it changes, the logo as multipart.
  const transform = (values: UserFormValues) => {
    const payload = toPayload(values, isEdit);
    // An unchanged role is not sent: changing a role needs "assign user roles", and nobody may change their own.
    if (isEdit && payload.role_id === (record!.roles?.[0]?.id ?? null)) delete payload.role_id;
    if (values.user_type === 'dealer' && logoRef.current) payload.dealer_logo = logoRef.current;
    return payload;
  };
  const mutationOptions = {
    onSuccess: async () => {
      notify(isEdit ? 'users.updated' : 'users.created', { type: 'success' });
      await queryClient.invalidateQueries({ queryKey: ['roles'] });
      onClose();
    },
    // Field errors are put on their fields by react-admin; the logo's goes to the logo area and
    // anything else to the Error banner (docs/product.md section 8).
    onError: (e: unknown) => {
      // A translation's error (translations.ae.description) goes on its input too, not to the banner.
      const split = splitServerErrors(e, [...FIELDS, 'starter_payment_methods.*', ...translationPaths('company_name'), ...translationPaths('description')]);
      setLogoError(split.logo);
      setBanner(split.banner);
    },
  };
  const values = initialValues(userType, record);
  const form = (
    <Form resolver={resolver} defaultValues={values} record={record ? { ...values, id: record.id } : undefined} noValidate>
      <UserFormBody userType={userType} record={record} onClose={onClose} logo={logo} setLogo={setLogo} logoError={logoError} setLogoError={setLogoError} banner={banner} />
    </Form>
  );
  return (
    <Drawer
      anchor="right"
      open={open}
      onClose={onClose}
      transitionDuration={{ enter: 225, exit: CLOSE_MS }}
      slotProps={{ paper: { sx: { width: { xs: '100%', md: SLIDE_OVER_WIDTH }, '& > form': { height: '100%' } }, role: 'dialog', 'aria-labelledby': 'user-form-title' } as object }}
    >
      {open && !isEdit && (
        <CreateBase resource="users" redirect={false} transform={transform} mutationOptions={mutationOptions}>
          {form}
        </CreateBase>
      )}
      {open && isEdit && (
        <EditBase resource="users" id={record.id} redirect={false} mutationMode="pessimistic" transform={transform} mutationOptions={mutationOptions}>
          {form}
        </EditBase>
      )}
    </Drawer>
  );
}

/** The fields of the slide-over, inside react-admin's Form. */
function UserFormBody({
  userType,
  record,
  onClose,
  logo,
  setLogo,
  logoError,
  setLogoError,
  banner,
}: {
  userType: UserType;
  record: UserRecord | null;
  onClose: () => void;
  logo: File | null;
  setLogo: (f: File | null) => void;
  logoError?: string;
  setLogoError: (m: string | undefined) => void;
  banner?: string;
}) {
  const translate = useTranslate();
  const notify = useNotify();
  const queryClient = useQueryClient();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const isEdit = !!record;
  const [savedLogo, setSavedLogo] = useState<string | null>(record?.dealer_details?.logo_path ?? null);
  const [removingLogo, setRemovingLogo] = useState(false);
  const form = useFormContext<UserFormValues>();
  const { control, setValue, watch } = form;
  const formState = useFormState<UserFormValues>();
  const { saving } = useSaveContext();
  const type = watch('user_type') ?? userType;

  const typeLabel = translate(`users.types.${type}`);
  const title = isEdit ? translate('users.edit_title', { type: typeLabel }) : translate(`users.new_title.${type ?? 'user'}`, { _: translate('users.new_title.user') });
  const err = (name: keyof UserFormValues | 'dealer_logo') => {
    const m = (formState.errors as Record<string, { message?: unknown } | undefined>)[name]?.message;
    return m ? translate(String(m), { _: String(m) }) : undefined;
  };
  const field = (name: keyof UserFormValues, extra: Record<string, unknown> = {}) => ({
    ...muiRegister(form.register, name),
    label: translate(`users.fields.${name}`),
    error: !!formState.errors[name],
    helperText: err(name),
    fullWidth: true,
    ...extra,
  });

  const pending = !!saving;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%' }}>
        <Stack direction="row" sx={{ alignItems: "center", justifyContent: "space-between", px: 3, py: 2 }}>
          <Typography id="user-form-title" variant="h6" component="h2">
            {title}
          </Typography>
          <IconButton onClick={onClose} aria-label={translate('common.close')} disabled={pending}>
            <CloseIcon />
          </IconButton>
        </Stack>
        <Divider />
        <Box sx={{ p: 3, overflowY: 'auto', flex: 1 }}>
          <ErrorBanner message={banner} />
          <Grid container spacing={2}>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextField {...field('name', { required: true, autoFocus: true })} />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextField {...field('email', { required: true, type: 'email' })} />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <PasswordField
                {...field('password', { required: !isEdit, autoComplete: 'new-password' })}
                helperText={err('password') ?? (isEdit ? translate('users.password_keep') : undefined)}
              />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <PasswordField {...field('password_confirmation', { required: !isEdit, autoComplete: 'new-password' })} />
            </Grid>
            <Grid size={12}>
              <Button
                size="small"
                startIcon={<KeyIcon />}
                onClick={() => {
                  const p = generatePassword();
                  setValue('password', p, { shouldDirty: true });
                  setValue('password_confirmation', p, { shouldDirty: true });
                  notify('users.password_generated', { type: 'info', messageArgs: { password: p } });
                }}
              >
                {translate('users.generate_password')}
              </Button>
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextField {...field('phone', { type: 'tel' })} />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <Controller
                control={control}
                name="status"
                render={({ field: f }) => (
                  <TextField select label={translate('users.fields.status')} fullWidth value={f.value} onChange={f.onChange} error={!!formState.errors.status} helperText={err('status')}>
                    {STATUSES.map((s) => (
                      <MenuItem key={s} value={s}>
                        {translate(`users.status.${s}`)}
                      </MenuItem>
                    ))}
                  </TextField>
                )}
              />
            </Grid>
            <Grid size={12}>
              <TextField {...field('address', { multiline: true, minRows: 2 })} />
            </Grid>
            {type !== 'dealer' && (
              <Grid size={{ xs: 12, sm: 6 }}>
                <Controller
                  control={control}
                  name="role_id"
                  render={({ field: f }) => <RolePicker value={f.value} onChange={f.onChange} error={!!formState.errors.role_id} helperText={err('role_id')} />}
                />
              </Grid>
            )}
          </Grid>
          {type === 'dealer' && (
            <>
              <Typography variant="subtitle1" sx={{ fontWeight: 600, mt: 3, mb: 1 }}>
                {translate('users.dealer_section')}
              </Typography>
              <Grid container spacing={2}>
                <Grid size={{ xs: 12, sm: 6 }}>
                  <TextField {...field('dealer_code', { required: true })} />
                </Grid>
                <Grid size={{ xs: 12, sm: 6 }}>
                  <TextField {...field('company_name')} />
                </Grid>
                <Grid size={12}>
                  <TranslationFields source="company_name" label="users.fields.company_name" />
                </Grid>
                <Grid size={{ xs: 12, sm: 6 }}>
                  <Controller
                    control={control}
                    name="brand_color"
                    render={({ field: f }) => (
                      <TextField
                        label={translate('users.fields.brand_color')}
                        fullWidth
                        value={f.value}
                        onChange={f.onChange}
                        error={!!formState.errors.brand_color}
                        helperText={err('brand_color')}
                        slotProps={{
                          input: {
                            startAdornment: (
                              <InputAdornment position="start">
                                <input type="color" aria-label={translate('users.fields.brand_color')} value={f.value || '#000000'} onChange={f.onChange} style={{ width: 28, height: 28, border: 0, padding: 0, background: 'none' }} />
                              </InputAdornment>
                            ),
                          },
                        }}
                      />
                    )}
                  />
                </Grid>
                <Grid size={{ xs: 12, sm: 6 }}>
                  <Controller
                    control={control}
                    name="pricing_model"
                    render={({ field: f }) => (
                      <TextField select label={translate('users.fields.pricing_model')} fullWidth value={f.value} onChange={f.onChange} error={!!formState.errors.pricing_model} helperText={err('pricing_model') ?? translate(`users.pricing_help.${f.value}`)}>
                        {PRICING_MODELS.map((m) => (
                          <MenuItem key={m} value={m}>
                            {translate(`users.pricing.${m}`)}
                          </MenuItem>
                        ))}
                      </TextField>
                    )}
                  />
                </Grid>
                <Grid size={{ xs: 12, sm: 6 }}>
                  <TextField {...field('website', { type: 'url' })} />
                </Grid>
                <Grid size={{ xs: 12, sm: 6 }}>
                  <TextField {...field('contact_email', { type: 'email' })} />
                </Grid>
                <Grid size={{ xs: 12, sm: 6 }}>
                  <TextField {...field('contact_phone', { type: 'tel' })} />
                </Grid>
                <Grid size={12}>
                  <TextField {...field('description', { multiline: true, minRows: 2 })} />
                </Grid>
                <Grid size={12}>
                  <TranslationFields source="description" label="users.fields.description" multiline />
                </Grid>
                {!isEdit && (
                  <Grid size={12}>
                    <TextField
                      {...field('starter_margin', { inputMode: 'decimal', placeholder: '0.10' })}
                      helperText={err('starter_margin') ?? translate('users.starter_margin_help')}
                      slotProps={{ htmlInput: { dir: 'ltr' } }}
                    />
                  </Grid>
                )}
                {!isEdit && (
                  <Grid size={12}>
                    <StarterPaymentMethods pricingModel={watch('pricing_model') ?? 'cost'} />
                  </Grid>
                )}
                <Grid size={12}>
                  <LogoUpload
                    file={logo}
                    current={savedLogo}
                    busy={removingLogo}
                    onRemove={
                      isEdit
                        ? async () => {
                            setRemovingLogo(true);
                            try {
                              await dataProvider.deleteDealerLogo({ id: record!.h_id ?? record!.id });
                              setSavedLogo(null);
                              await queryClient.invalidateQueries({ queryKey: ['users'] });
                            } catch (e) {
                              setLogoError((e as Error).message);
                            } finally {
                              setRemovingLogo(false);
                            }
                          }
                        : undefined
                    }
                    onChange={(f) => {
                      setLogo(f);
                      if (f) {
                        setLogoError(undefined);
                        form.clearErrors('dealer_logo' as keyof UserFormValues);
                      }
                    }}
                    error={err('dealer_logo') ?? logoError}
                  />
                </Grid>
              </Grid>
            </>
          )}
        </Box>
        <Divider />
        <Stack direction="row" spacing={1} sx={{ justifyContent: "flex-end", px: 3, py: 2 }}>
          <SaveCancelButtons isEdit={isEdit} pending={pending} onCancel={onClose} />
        </Stack>
    </Box>
  );
}

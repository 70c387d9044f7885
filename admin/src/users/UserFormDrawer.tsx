import { useEffect, useMemo, useRef, useState } from 'react';
import { useFormContext, useWatch, type Resolver } from 'react-hook-form';
import { useQueryClient } from '@tanstack/react-query';
import {
  CreateBase,
  EditBase,
  Form,
  PasswordInput,
  SelectInput,
  TextInput,
  useDataProvider,
  useInput,
  useNotify,
  useSaveContext,
  useTranslate,
  type TextInputProps,
} from 'react-admin';
import { Box, Button, Divider, Drawer, Grid, IconButton, InputAdornment, Stack, Typography } from '@mui/material';
import { TwoFactorUserSection } from './TwoFactorReset';
import { sendWelcomeEmail } from '../auth/welcomeEmail';
import { SmsReceiptsCard } from '../profile/SmsReceiptsCard';
import CloseIcon from '@mui/icons-material/Close';
import KeyIcon from '@mui/icons-material/Key';
import { createUserSchema, updateUserSchema, PRICING_MODELS, STATUSES } from '@app/contracts';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { schemaResolver } from '../common/schemaResolver';
import { ErrorBanner, SaveCancelButtons } from '../common/FormParts';
import { generatePassword } from './password';
import { splitServerErrors } from './serverErrors';
import { PricingChangeConfirm, isPricingChangeQuestion } from './PricingChangeConfirm';
import { serverMessage } from '../providers/errors';
import { TranslationFields, translationPaths } from '../common/TranslationFields';
import { RolePicker } from './RolePicker';
import { LogoUpload } from './LogoUpload';
import { StarterPaymentMethods, type StarterPaymentMethodsValue } from './StarterPaymentMethods';
import type { UserRecord, UserType } from './types';

export const SLIDE_OVER_WIDTH = 800;
export const CLOSE_MS = 300;

/** What toPayload knows when it decides whether a field is sent. */
interface PayloadScope {
  isEdit: boolean;
  record?: UserRecord | null;
  values: { password?: string | null; pricing_model?: string };
}

/** Leave the field out of the payload. */
const SKIP = Symbol('skip');

interface FieldSpec<T> {
  /** The form's value for a new user of this type, or the record's. */
  initial: (record: UserRecord | null | undefined, userType: UserType) => T;
  /** Sent for dealers only, or for the other types only (the role). */
  only?: 'dealer' | 'not-dealer';
  /** Sent on create only (the starter catalogue and payment methods). */
  createOnly?: boolean;
  /** What the API gets for the value, or SKIP; the value itself by default. */
  send?: (value: T, scope: PayloadScope) => unknown;
  /** The API's error paths under this field (translations.ae.description ...), shown on their inputs. */
  errorPaths?: readonly string[];
}
const field = <T,>(initial: FieldSpec<T>['initial'], rules: Omit<FieldSpec<T>, 'initial'> = {}): FieldSpec<T> => ({ initial, ...rules });

const dealerOf = (r: UserRecord | null | undefined) => r?.dealer_details ?? null;
const roleOf = (r: UserRecord | null | undefined): number | null => r?.roles?.[0]?.id ?? null;
// A blank password on edit keeps the current one: neither it nor its confirmation is sent.
const passwordRule = (v: string, s: PayloadScope) => (s.isEdit && !s.values.password ? SKIP : v);

/**
 * The user form's fields, declared once: each one's starting value, whether and how the API gets
 * it (docs/product.md section 3), and the server error paths that belong to it.
 */
export const USER_FIELDS = {
  name: field((r) => r?.name ?? ''),
  email: field((r) => r?.email ?? ''),
  password: field(() => '', { send: passwordRule }),
  password_confirmation: field(() => '', { send: passwordRule }),
  phone: field((r) => r?.phone ?? ''),
  address: field((r) => r?.address ?? ''),
  status: field((r) => (r?.status as (typeof STATUSES)[number] | undefined) ?? 'active'),
  user_type: field((r, type) => (r?.user_type as UserType | undefined) ?? type),
  // An unchanged role is not sent: changing a role needs "assign user roles", and nobody may change their own.
  role_id: field(roleOf, { only: 'not-dealer', send: (v, s) => (s.isEdit && v === roleOf(s.record) ? SKIP : v) }),
  dealer_code: field((r) => r?.dealer_code ?? '', { only: 'dealer' }),
  brand_color: field((r) => dealerOf(r)?.brand_color ?? '#000000', { only: 'dealer' }),
  company_name: field((r) => dealerOf(r)?.company_name ?? '', { only: 'dealer' }),
  description: field((r) => dealerOf(r)?.description ?? '', { only: 'dealer' }),
  website: field((r) => dealerOf(r)?.website ?? '', { only: 'dealer' }),
  contact_email: field((r) => dealerOf(r)?.contact_email ?? '', { only: 'dealer' }),
  contact_phone: field((r) => dealerOf(r)?.contact_phone ?? '', { only: 'dealer' }),
  pricing_model: field((r) => (dealerOf(r)?.pricing_model as (typeof PRICING_MODELS)[number] | undefined) ?? 'cost', { only: 'dealer' }),
  /** The company name and description per language (translations.ae.description ...). */
  translations: field((r): Record<string, Record<string, string>> => dealerOf(r)?.translations ?? {}, {
    only: 'dealer',
    errorPaths: [...translationPaths('company_name'), ...translationPaths('description')],
  }),
  /** New dealers only: the company's catalogue switched on at cost + this margin ('' = an empty shop). */
  starter_margin: field(() => '', { only: 'dealer', createOnly: true, send: (v) => (v.trim() === '' ? SKIP : v.trim()) }),
  /** New "Cost + Profit" dealers only: company payment methods to copy, each with the shop's own number. */
  starter_payment_methods: field((): StarterPaymentMethodsValue => ({}), {
    only: 'dealer',
    createOnly: true,
    send: (v, s) => (s.values.pricing_model === 'cost' && Object.keys(v ?? {}).length ? v : SKIP),
    errorPaths: ['starter_payment_methods.*'],
  }),
  /** The chosen logo file (required for a new dealer); the saved one is shown from the record. */
  dealer_logo: field((): File | null => null, { only: 'dealer', send: (v) => (v instanceof Blob ? v : SKIP) }),
};

type Fields = typeof USER_FIELDS;
export type UserFormValues = { [K in keyof Fields]: Fields[K] extends FieldSpec<infer T> ? T : never };
type FieldName = keyof UserFormValues;
const NAMES = Object.keys(USER_FIELDS) as FieldName[];

/** The server error paths shown on their inputs; anything else goes to the Error banner. */
export const FIELD_ERROR_PATHS: string[] = NAMES.flatMap((n) => [n, ...(USER_FIELDS[n].errorPaths ?? [])]);

export function initialValues(userType: UserType, record?: UserRecord | null): UserFormValues {
  return Object.fromEntries(NAMES.map((n) => [n, USER_FIELDS[n].initial(record, userType)])) as UserFormValues;
}

/** The payload the API gets: dealer fields only for dealers, the role only for admins, no blank password on edit. */
export function toPayload(values: UserFormValues, isEdit: boolean, record?: UserRecord | null): Record<string, unknown> {
  const dealer = values.user_type === 'dealer';
  const scope: PayloadScope = { isEdit, record, values };
  const out: Record<string, unknown> = {};
  for (const n of NAMES) {
    const spec = USER_FIELDS[n] as FieldSpec<unknown>;
    if ((spec.only === 'dealer' && !dealer) || (spec.only === 'not-dealer' && dealer) || (spec.createOnly && isEdit)) continue;
    const sent = spec.send ? spec.send(values[n], scope) : values[n];
    if (sent !== SKIP) out[n] = sent;
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
  const [banner, setBanner] = useState<string | undefined>();

  useEffect(() => {
    if (open) setBanner(undefined);
  }, [open, record]);

  const resolver = useMemo(() => {
    // Whole paths: the translations' and starter payment methods' inputs sit below the top level.
    const shared = schemaResolver<UserFormValues>(isEdit ? updateUserSchema : createUserSchema, undefined, undefined, { nested: true });
    // A new dealer needs a logo: said on Save with the other messages, before any call.
    return (async (values, context, options) => {
      const result = await shared(values, context, options);
      if (isEdit || values.user_type !== 'dealer' || values.dealer_logo) return result;
      return { values: {}, errors: { ...result.errors, dealer_logo: { type: 'required', message: 'validation:dealer_logo_required' } } };
    }) as Resolver<UserFormValues>;
  }, [isEdit]);

  // A new pricing model for a dealer whose wallet holds money: the API asks first (409, naming the
  // balance); once the admin confirms, the same save goes again saying it is meant.
  const [pricingQuestion, setPricingQuestion] = useState<string | null>(null);
  const pricingConfirmed = useRef(false);
  useEffect(() => {
    if (open) setPricingQuestion(null);
  }, [open, record]);
  // What the API gets (the logo makes it multipart).
  const transform = (values: UserFormValues) => ({
    ...toPayload(values, isEdit, record),
    ...(pricingConfirmed.current ? { confirm_pricing_change: true } : {}),
  });
  const mutationOptions = {
    onSuccess: async (created?: { id?: number | string }) => {
      pricingConfirmed.current = false;
      if (isEdit || created?.id === undefined) notify(isEdit ? 'users.updated' : 'users.created', { type: 'success' });
      // A new account gets its welcome email (a link to choose a password); not sent, the console says so.
      else void sendWelcomeEmail(created.id).then((welcome) => notify(welcome.toast, { type: welcome.sent ? 'success' : 'warning', autoHideDuration: 10_000 }));
      await queryClient.invalidateQueries({ queryKey: ['roles'] });
      onClose();
    },
    // Field errors (dealer_logo's in the logo area) are put on their fields by react-admin;
    // anything else goes to the Error banner (docs/product.md section 8).
    onError: (e: unknown) => {
      pricingConfirmed.current = false;
      if (isPricingChangeQuestion(e)) setPricingQuestion(serverMessage(e));
      else setBanner(splitServerErrors(e, FIELD_ERROR_PATHS).banner);
    },
  };
  const values = initialValues(userType, record);
  const form = (
    <Form resolver={resolver} defaultValues={values} record={record ? { ...values, id: record.id } : undefined} noValidate>
      <UserFormBody userType={userType} record={record} onClose={onClose} banner={banner} />
      <PricingChangeConfirm
        question={pricingQuestion}
        onConfirm={() => {
          pricingConfirmed.current = true;
          setPricingQuestion(null);
        }}
        onCancel={() => setPricingQuestion(null)}
      />
    </Form>
  );
  return (
    <Drawer
      anchor="right"
      open={open}
      onClose={onClose}
      transitionDuration={{ enter: 225, exit: CLOSE_MS }}
      slotProps={{
        paper: {
          sx: { width: { xs: '100%', md: SLIDE_OVER_WIDTH }, '& > form': { height: '100%' } },
          role: 'dialog',
          'aria-labelledby': 'user-form-title',
        } as object,
      }}
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

const STATUS_CHOICES = STATUSES.map((s) => ({ id: s, name: `users.status.${s}` }));
const PRICING_CHOICES = PRICING_MODELS.map((m) => ({ id: m, name: `users.pricing.${m}` }));
/** Text as typed: react-admin would turn an emptied input into null. */
const asTyped = (v: string) => v;

/**
 * A text input of the user form: labelled users.fields.<source>, full width; `ltr` for values
 * read left to right in an Arabic console too (emails, phones, codes, numbers); `required` marks
 * the label and tells assistive technology (the shared schema decides what is refused). No room is
 * kept under it for a message unless it has a help text.
 */
function UserTextInput({
  source,
  required = false,
  ltr = false,
  inputMode,
  ...rest
}: { source: FieldName; required?: boolean; ltr?: boolean; inputMode?: 'decimal' } & Omit<TextInputProps, 'source' | 'inputMode'>) {
  return (
    <TextInput
      source={source}
      label={`users.fields.${source}`}
      parse={asTyped}
      isRequired={required}
      helperText={false}
      fullWidth
      slotProps={{ htmlInput: { ...(required ? { 'aria-required': true } : {}), ...(ltr ? { dir: 'ltr' } : {}), ...(inputMode ? { inputMode } : {}) } }}
      {...rest}
    />
  );
}

/** The role picker (admins), bound to role_id. */
function RoleInput() {
  const translate = useTranslate();
  const { field: f, fieldState } = useInput<number | null>({ source: 'role_id', isRequired: true, format: (v) => v ?? null, parse: (v) => v });
  const m = fieldState.error?.message;
  return <RolePicker value={f.value} onChange={f.onChange} error={!!m} helperText={m ? translate(m, { _: m }) : undefined} />;
}

/** The brand colour: a text input (#RRGGBB) with a colour picker beside it. */
function BrandColorInput() {
  const translate = useTranslate();
  const { setValue } = useFormContext<UserFormValues>();
  const color = useWatch<UserFormValues, 'brand_color'>({ name: 'brand_color' });
  return (
    <UserTextInput
      source="brand_color"
      ltr
      slotProps={{
        htmlInput: { dir: 'ltr' },
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <input
                type="color"
                aria-label={translate('users.fields.brand_color')}
                value={color || '#000000'}
                onChange={(e) => setValue('brand_color', e.target.value, { shouldDirty: true })}
                style={{ width: 28, height: 28, border: 0, padding: 0, background: 'none' }}
              />
            </InputAdornment>
          ),
        },
      }}
    />
  );
}

/** The dealer logo area, bound to dealer_logo (the chosen file); on edit the saved logo can be removed. */
function DealerLogoInput({ record }: { record: UserRecord | null }) {
  const queryClient = useQueryClient();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const { setError, clearErrors } = useFormContext<UserFormValues>();
  const { field: f, fieldState } = useInput<File | null>({ source: 'dealer_logo', format: (v) => v ?? null, parse: (v) => v });
  const [saved, setSaved] = useState<string | null>(record?.dealer_details?.logo_path ?? null);
  const [removing, setRemoving] = useState(false);
  const remove = async () => {
    setRemoving(true);
    try {
      await dataProvider.deleteDealerLogo({ id: record!.h_id ?? record!.id });
      setSaved(null);
      await queryClient.invalidateQueries({ queryKey: ['users'] });
    } catch (e) {
      setError('dealer_logo', { type: 'server', message: (e as Error).message });
    } finally {
      setRemoving(false);
    }
  };
  return (
    <LogoUpload
      file={f.value}
      current={saved}
      busy={removing}
      onRemove={record ? remove : undefined}
      onChange={(file) => {
        f.onChange(file);
        if (file) clearErrors('dealer_logo');
      }}
      error={fieldState.error?.message}
    />
  );
}

/** The fields of the slide-over, inside react-admin's Form. */
function UserFormBody({ userType, record, onClose, banner }: { userType: UserType; record: UserRecord | null; onClose: () => void; banner?: string }) {
  const translate = useTranslate();
  const notify = useNotify();
  const isEdit = !!record;
  const { setValue, clearErrors } = useFormContext<UserFormValues>();
  const { saving } = useSaveContext();
  const type = useWatch<UserFormValues, 'user_type'>({ name: 'user_type' }) ?? userType;
  const pricingModel = useWatch<UserFormValues, 'pricing_model'>({ name: 'pricing_model' }) ?? 'cost';

  const typeLabel = translate(`users.types.${type}`);
  const title = isEdit
    ? translate('users.edit_title', { type: typeLabel })
    : translate(`users.new_title.${type ?? 'user'}`, { _: translate('users.new_title.user') });

  const pending = !!saving;
  return (
    <Box sx={{ display: 'flex', flexDirection: 'column', height: '100%' }}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', px: 3, py: 2 }}>
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
            <UserTextInput source="name" required autoFocus />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <UserTextInput source="email" type="email" required ltr />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <PasswordInput
              source="password"
              label="users.fields.password"
              parse={asTyped}
              isRequired={!isEdit}
              autoComplete="new-password"
              helperText={isEdit ? 'users.password_keep' : false}
              fullWidth
              slotProps={{ htmlInput: { dir: 'ltr', ...(isEdit ? {} : { 'aria-required': true }) } }}
            />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <PasswordInput
              source="password_confirmation"
              label="users.fields.password_confirmation"
              parse={asTyped}
              isRequired={!isEdit}
              autoComplete="new-password"
              helperText={false}
              fullWidth
              slotProps={{ htmlInput: { dir: 'ltr', ...(isEdit ? {} : { 'aria-required': true }) } }}
            />
          </Grid>
          <Grid size={12}>
            <Button
              size="small"
              startIcon={<KeyIcon />}
              onClick={() => {
                const p = generatePassword();
                // Both fields now hold a valid password: the errors under them ("Password is
                // required", a server's 422) go with the values they were about.
                setValue('password', p, { shouldDirty: true, shouldTouch: true, shouldValidate: true });
                setValue('password_confirmation', p, { shouldDirty: true, shouldTouch: true, shouldValidate: true });
                clearErrors(['password', 'password_confirmation']);
                notify('users.password_generated', { type: 'info', messageArgs: { password: p } });
              }}
            >
              {translate('users.generate_password')}
            </Button>
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <UserTextInput source="phone" type="tel" ltr />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <SelectInput source="status" label="users.fields.status" choices={STATUS_CHOICES} isRequired helperText={false} fullWidth />
          </Grid>
          <Grid size={12}>
            <UserTextInput source="address" multiline minRows={2} />
          </Grid>
          {type !== 'dealer' && (
            <Grid size={{ xs: 12, sm: 6 }}>
              <RoleInput />
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
                <UserTextInput source="dealer_code" required ltr />
              </Grid>
              <Grid size={{ xs: 12, sm: 6 }}>
                <UserTextInput source="company_name" />
              </Grid>
              <Grid size={12}>
                <TranslationFields source="company_name" label="users.fields.company_name" />
              </Grid>
              <Grid size={{ xs: 12, sm: 6 }}>
                <BrandColorInput />
              </Grid>
              <Grid size={{ xs: 12, sm: 6 }}>
                <SelectInput
                  source="pricing_model"
                  label="users.fields.pricing_model"
                  choices={PRICING_CHOICES}
                  isRequired
                  fullWidth
                  helperText={`users.pricing_help.${pricingModel}`}
                />
              </Grid>
              <Grid size={{ xs: 12, sm: 6 }}>
                <UserTextInput source="website" type="url" ltr />
              </Grid>
              <Grid size={{ xs: 12, sm: 6 }}>
                <UserTextInput source="contact_email" type="email" ltr />
              </Grid>
              <Grid size={{ xs: 12, sm: 6 }}>
                <UserTextInput source="contact_phone" type="tel" ltr />
              </Grid>
              <Grid size={12}>
                <UserTextInput source="description" multiline minRows={2} />
              </Grid>
              <Grid size={12}>
                <TranslationFields source="description" label="users.fields.description" multiline />
              </Grid>
              {!isEdit && (
                <Grid size={12}>
                  <UserTextInput source="starter_margin" ltr inputMode="decimal" placeholder="0.10" helperText="users.starter_margin_help" />
                </Grid>
              )}
              {!isEdit && (
                <Grid size={12}>
                  <StarterPaymentMethods pricingModel={pricingModel} />
                </Grid>
              )}
              <Grid size={12}>
                <DealerLogoInput record={record} />
              </Grid>
            </Grid>
          </>
        )}
        {record && <TwoFactorUserSection user={record} />}
        {record && userType === 'dealer' && (
          <Box sx={{ mt: 2 }}>
            <SmsReceiptsCard dealerId={record.id} />
          </Box>
        )}
      </Box>
      <Divider />
      <Stack direction="row" spacing={1} sx={{ justifyContent: 'flex-end', px: 3, py: 2 }}>
        <SaveCancelButtons isEdit={isEdit} pending={pending} onCancel={onClose} />
      </Stack>
    </Box>
  );
}

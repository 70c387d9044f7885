import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useDataProvider, useNotify, useTranslate } from 'react-admin';
import { Avatar, Box, Button, Card, CardContent, CardHeader, Chip, Grid, Stack, TextField, Typography } from '@mui/material';
import PhotoCameraIcon from '@mui/icons-material/PhotoCameraOutlined';
import { profileSchema, changePasswordSchema } from '@app/contracts';
import { authProvider } from '../providers/authProvider';
import { useSession } from '../providers/useSession';
import { resolveImage } from '../common/image';
import { muiRegister, sharedResolver } from '../common/zodForm';
import { ErrorBanner } from '../common/FormParts';
import { PasswordField } from '../common/PasswordField';
import { PageTitle } from '../common/PageTitle';
import { splitServerErrors } from '../users/serverErrors';
import { LogoUpload } from '../users/LogoUpload';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { TwoFactorCard } from './TwoFactorCard';
import { SmsReceiptsCard } from './SmsReceiptsCard';

interface ProfileValues {
  name: string;
  email: string;
  phone: string;
  address: string;
}
interface PasswordValues {
  current_password: string;
  password: string;
  password_confirmation: string;
}

/** /auth/profile: own details, profile picture, password and two-factor sign-in. */
export default function ProfilePage() {
  const translate = useTranslate();
  const { user } = useSession();
  return (
    <>
      <PageTitle title={translate('profile.title')} />
      <Grid container spacing={3}>
        <Grid size={{ xs: 12, md: 4 }}>
          <PictureCard />
        </Grid>
        <Grid size={{ xs: 12, md: 8 }}>
          <Stack spacing={3}>
            {user && <DetailsCard key={String(user.updated_at ?? user.id)} />}
            {user?.user_type === 'dealer' && <DealerLogoCard />}
            {user?.user_type === 'dealer' && <SmsReceiptsCard />}
            <PasswordCard />
            <TwoFactorCard />
          </Stack>
        </Grid>
      </Grid>
    </>
  );
}

function useT() {
  const translate = useTranslate();
  return (m?: unknown) => (m ? translate(String(m), { _: String(m) }) : undefined);
}

function PictureCard() {
  const translate = useTranslate();
  const notify = useNotify();
  const { user } = useSession();
  const [busy, setBusy] = useState(false);
  const upload = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    try {
      await authProvider.uploadProfilePicture(file);
      notify('profile.picture_updated', { type: 'success' });
    } catch (e) {
      notify((e as Error).message, { type: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card>
      <CardContent>
        <Stack spacing={1.5} sx={{ alignItems: 'center' }}>
          <Avatar src={resolveImage(user?.profile_image)} alt="" sx={{ width: 112, height: 112 }} />
          <Typography variant="h6" component="p">
            {user?.name}
          </Typography>
          <Typography color="text.secondary">{user?.email}</Typography>
          <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', justifyContent: 'center' }}>
            {user?.roles?.map((r) => (
              <Chip key={r.id} label={r.name} size="small" />
            ))}
          </Stack>
          <Button component="label" variant="outlined" startIcon={<PhotoCameraIcon />} disabled={busy}>
            {busy ? translate('common.saving') : translate('profile.change_picture')}
            <input hidden type="file" accept="image/*" name="profile_image" onChange={(e) => upload(e.target.files?.[0])} />
          </Button>
          <Typography variant="caption" color="text.secondary">
            {translate('users.logo_hint')}
          </Typography>
        </Stack>
      </CardContent>
    </Card>
  );
}

function DetailsCard() {
  const translate = useTranslate();
  const t = useT();
  const notify = useNotify();
  const { user } = useSession();
  const [banner, setBanner] = useState<string>();
  const { register, handleSubmit, formState, setError } = useForm<ProfileValues>({
    resolver: sharedResolver(profileSchema),
    defaultValues: { name: user?.name ?? '', email: user?.email ?? '', phone: user?.phone ?? '', address: user?.address ?? '' },
  });
  const onSubmit = handleSubmit(async (values) => {
    setBanner(undefined);
    try {
      await authProvider.updateProfile(values as unknown as Record<string, unknown>);
      notify('profile.updated', { type: 'success' });
    } catch (e) {
      const split = splitServerErrors(e, ['name', 'email', 'phone', 'address']);
      for (const [f, m] of Object.entries(split.fields)) setError(f as keyof ProfileValues, { type: 'server', message: m });
      setBanner(split.banner);
    }
  });
  const f = (name: keyof ProfileValues, extra: object = {}) => ({
    ...muiRegister(register, name),
    label: translate(`users.fields.${name}`),
    error: !!formState.errors[name],
    helperText: t(formState.errors[name]?.message),
    fullWidth: true,
    ...extra,
  });
  return (
    <Card component="form" onSubmit={onSubmit} noValidate>
      <CardHeader title={translate('profile.details')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
      <CardContent>
        <ErrorBanner message={banner} />
        <Grid container spacing={2}>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...f('name', { required: true })} />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...f('email', { required: true, type: 'email' })} />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <TextField {...f('phone')} />
          </Grid>
          <Grid size={12}>
            <TextField {...f('address', { multiline: true, minRows: 2 })} />
          </Grid>
        </Grid>
        <Box sx={{ mt: 2, textAlign: 'end' }}>
          <Button type="submit" variant="contained" disabled={formState.isSubmitting}>
            {formState.isSubmitting ? translate('common.updating') : translate('common.update')}
          </Button>
        </Box>
      </CardContent>
    </Card>
  );
}

function PasswordCard() {
  const translate = useTranslate();
  const t = useT();
  const notify = useNotify();
  const [banner, setBanner] = useState<string>();
  const { register, handleSubmit, formState, setError, reset } = useForm<PasswordValues>({
    resolver: sharedResolver(changePasswordSchema),
    defaultValues: { current_password: '', password: '', password_confirmation: '' },
  });
  const onSubmit = handleSubmit(async (values) => {
    setBanner(undefined);
    try {
      await authProvider.changePassword(values);
      notify('profile.password_changed', { type: 'success' });
      reset();
    } catch (e) {
      const split = splitServerErrors(e, ['current_password', 'password', 'password_confirmation']);
      for (const [k, m] of Object.entries(split.fields)) setError(k as keyof PasswordValues, { type: 'server', message: m });
      setBanner(split.banner);
    }
  });
  const f = (name: keyof PasswordValues) => ({
    ...muiRegister(register, name),
    label: translate(`profile.fields.${name}`),
    error: !!formState.errors[name],
    helperText: t(formState.errors[name]?.message),
    autoComplete: name === 'current_password' ? 'current-password' : 'new-password',
    required: true,
  });
  return (
    <Card component="form" onSubmit={onSubmit} noValidate>
      <CardHeader title={translate('profile.change_password')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
      <CardContent>
        <ErrorBanner message={banner} />
        <Grid container spacing={2}>
          <Grid size={12}>
            <PasswordField {...f('current_password')} />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <PasswordField {...f('password')} />
          </Grid>
          <Grid size={{ xs: 12, sm: 6 }}>
            <PasswordField {...f('password_confirmation')} />
          </Grid>
        </Grid>
        <Box sx={{ mt: 2, textAlign: 'end' }}>
          <Button type="submit" variant="contained" disabled={formState.isSubmitting}>
            {formState.isSubmitting ? translate('common.updating') : translate('profile.change_password')}
          </Button>
        </Box>
      </CardContent>
    </Card>
  );
}

/** A signed-in dealer's own logo (POST / DELETE /users/dealer/logo). */
function DealerLogoCard() {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const { user } = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const current = (user?.dealer_details as { logo_path?: string | null } | null | undefined)?.logo_path ?? null;
  const run = async (call: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await call();
      // The stored user carries dealer_details: read it again.
      await authProvider.me();
      notify('profile.logo_updated', { type: 'success' });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Card>
      <CardHeader title={translate('users.fields.dealer_logo')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
      <CardContent>
        <LogoUpload
          file={null}
          current={current}
          busy={busy}
          error={error}
          onChange={(file) => file && run(() => dataProvider.uploadDealerLogo({ id: 'me', file }))}
          onRemove={() => run(() => dataProvider.deleteDealerLogo({ id: 'me' }))}
        />
      </CardContent>
    </Card>
  );
}

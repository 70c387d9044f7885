import { useState } from 'react';
import type { FieldValues } from 'react-hook-form';
import { Form, PasswordInput, TextInput, useDataProvider, useNotify, useTranslate } from 'react-admin';
import { Avatar, Box, Button, Card, CardContent, CardHeader, Chip, Grid, Stack, Typography } from '@mui/material';
import PhotoCameraIcon from '@mui/icons-material/PhotoCameraOutlined';
import { profileSchema, changePasswordSchema } from '@app/contracts';
import { authProvider } from '../providers/authProvider';
import { useSignedInUser } from '../auth/identity';
import { resolveImage } from '../common/image';
import { schemaResolver, typedText } from '../common/schemaResolver';
import { ErrorBanner, FormSubmitButton } from '../common/FormParts';
import { PageTitle } from '../common/PageTitle';
import { splitServerErrors } from '../users/serverErrors';
import { LogoUpload } from '../users/LogoUpload';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { TwoFactorCard } from './TwoFactorCard';
import { SmsReceiptsCard } from './SmsReceiptsCard';
import { accountCalls } from './accountCalls';

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
const PROFILE_FIELDS = ['name', 'email', 'phone', 'address'];
const PASSWORD_FIELDS = ['current_password', 'password', 'password_confirmation'];

/** /auth/profile: own details, profile picture, password and two-factor sign-in. */
export default function ProfilePage() {
  const translate = useTranslate();
  const user = useSignedInUser();
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

function PictureCard() {
  const translate = useTranslate();
  const notify = useNotify();
  const user = useSignedInUser();
  const [busy, setBusy] = useState(false);
  const upload = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    try {
      await accountCalls.uploadProfilePicture(file);
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
  const notify = useNotify();
  const user = useSignedInUser();
  const [banner, setBanner] = useState<string>();
  const initial: ProfileValues = { name: user?.name ?? '', email: user?.email ?? '', phone: user?.phone ?? '', address: user?.address ?? '' };
  const submit = async (values: FieldValues) => {
    setBanner(undefined);
    try {
      await accountCalls.updateProfile({ ...typedText(values, initial) });
      notify('profile.updated', { type: 'success' });
      return undefined;
    } catch (e) {
      const split = splitServerErrors(e, PROFILE_FIELDS);
      setBanner(split.banner);
      // react-admin's Form puts these on their inputs.
      return split.fields;
    }
  };
  return (
    <Form
      defaultValues={initial}
      resolver={schemaResolver<ProfileValues>(profileSchema, (v) => typedText(v, initial)) as never}
      onSubmit={submit}
      noValidate
      disableInvalidFormNotification
    >
      <Card>
        <CardHeader title={translate('profile.details')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
        <CardContent>
          <ErrorBanner message={banner} />
          <Grid container spacing={2}>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextInput source="name" label={translate('users.fields.name')} helperText={false} required margin="none" />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextInput source="email" type="email" label={translate('users.fields.email')} helperText={false} required margin="none" />
            </Grid>
            <Grid size={{ xs: 12, sm: 6 }}>
              <TextInput source="phone" label={translate('users.fields.phone')} helperText={false} margin="none" />
            </Grid>
            <Grid size={12}>
              <TextInput source="address" label={translate('users.fields.address')} helperText={false} multiline minRows={2} margin="none" />
            </Grid>
          </Grid>
          <Box sx={{ mt: 2, textAlign: 'end' }}>
            <FormSubmitButton label={translate('common.update')} pendingLabel={translate('common.updating')} />
          </Box>
        </CardContent>
      </Card>
    </Form>
  );
}

const PASSWORD_EMPTY: PasswordValues = { current_password: '', password: '', password_confirmation: '' };

function PasswordCard() {
  const translate = useTranslate();
  const notify = useNotify();
  const [banner, setBanner] = useState<string>();
  // A changed password empties the form: it starts again.
  const [round, setRound] = useState(0);
  const submit = async (values: FieldValues) => {
    setBanner(undefined);
    try {
      await accountCalls.changePassword(typedText(values, PASSWORD_EMPTY));
      notify('profile.password_changed', { type: 'success' });
      setRound((n) => n + 1);
      return undefined;
    } catch (e) {
      const split = splitServerErrors(e, PASSWORD_FIELDS);
      setBanner(split.banner);
      return split.fields;
    }
  };
  const input = (name: keyof PasswordValues, size: object) => (
    <Grid size={size}>
      <PasswordInput
        source={name}
        label={translate(`profile.fields.${name}`)}
        autoComplete={name === 'current_password' ? 'current-password' : 'new-password'}
        helperText={false}
        required
        margin="none"
      />
    </Grid>
  );
  return (
    <Form
      key={round}
      defaultValues={PASSWORD_EMPTY}
      resolver={schemaResolver<PasswordValues>(changePasswordSchema, (v) => typedText(v, PASSWORD_EMPTY)) as never}
      onSubmit={submit}
      noValidate
      disableInvalidFormNotification
    >
      <Card>
        <CardHeader title={translate('profile.change_password')} slotProps={{ title: { component: 'h2', variant: 'h6' } }} />
        <CardContent>
          <ErrorBanner message={banner} />
          <Grid container spacing={2}>
            {input('current_password', { xs: 12 })}
            {input('password', { xs: 12, sm: 6 })}
            {input('password_confirmation', { xs: 12, sm: 6 })}
          </Grid>
          <Box sx={{ mt: 2, textAlign: 'end' }}>
            <FormSubmitButton label={translate('profile.change_password')} pendingLabel={translate('common.updating')} />
          </Box>
        </CardContent>
      </Card>
    </Form>
  );
}

/** A signed-in dealer's own logo (POST / DELETE /users/dealer/logo). */
function DealerLogoCard() {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const user = useSignedInUser();
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

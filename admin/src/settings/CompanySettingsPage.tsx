import { Form, SaveButton, SelectInput, TextInput, useCanAccess, useTranslate } from 'react-admin';
import { Card, CardContent, Stack } from '@mui/material';
import { companySettingsSchema, CURRENCIES, type CompanySettingsResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { FullPageLoader } from '../common/FullPageLoader';
import { LoadError } from '../common/ListParts';
import { ImageUploadInput } from '../common/ImageUploadInput';
import { sharedResolver } from '../common/zodForm';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { useSettingsGroup } from './useSettingsForm';

const TIME_ZONES = ['Africa/Mogadishu', 'Africa/Nairobi', 'Africa/Djibouti', 'Africa/Addis_Ababa', 'Asia/Dubai', 'Europe/London', 'UTC'];

/** /settings/company: the company's name, logo, contact, currency, time zone and the console footer text. */
export default function CompanySettingsPage() {
  const translate = useTranslate();
  const { data, isPending, error, refetch, save } = useSettingsGroup<CompanySettingsResponse>('company');
  const { canAccess: canUpdate } = useCanAccess({ resource: 'settings', action: 'update company settings' });
  // A failed load says why (the server's message) instead of spinning.
  if (error && !data) {
    return (
      <>
        <PageTitle title={translate('menu.settings_company')} />
        <LoadError error={error} onRetry={() => refetch()} />
      </>
    );
  }
  if (isPending || !data) return <FullPageLoader />;
  const submit = (values: Record<string, unknown>) => {
    const logo = values.logo as { rawFile?: File } | string | null | undefined;
    const fields = Object.fromEntries(
      Object.entries(values)
        .filter(([k]) => k !== 'logo')
        .map(([k, v]) => [k, v ?? '']),
    );
    if (logo && typeof logo === 'object' && logo.rawFile) {
      const fd = new FormData();
      for (const [k, v] of Object.entries(fields)) fd.append(k, String(v));
      fd.append('logo', logo.rawFile);
      return save(fd);
    }
    return save(fields);
  };
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.settings', to: '/settings' }, { label: 'menu.settings_company' }]} />
      <PageTitle title={translate('menu.settings_company')} />
      <Card>
        <CardContent>
          <Form record={data} resolver={sharedResolver(companySettingsSchema)} onSubmit={submit} disabled={!canUpdate}>
            <Stack sx={{ maxWidth: 640 }}>
              <TextInput source="company_name" label="settings.company.company_name" fullWidth />
              <ImageUploadInput source="logo" label="settings.company.logo" />
              <TextInput source="address" label="settings.company.address" fullWidth multiline />
              <TextInput source="phone" label="settings.company.phone" fullWidth />
              <TextInput source="email" label="settings.company.email" type="email" fullWidth />
              <SelectInput source="currency" label="settings.company.currency" choices={CURRENCIES.map((c) => ({ id: c, name: c }))} translateChoice={false} />
              <SelectInput
                source="timezone"
                label="settings.company.timezone"
                choices={[...new Set([data.timezone, ...TIME_ZONES])].map((z) => ({ id: z, name: z }))}
                translateChoice={false}
              />
              <TextInput source="footer_text" label="settings.company.footer_text" helperText="settings.company.footer_help" fullWidth />
              {canUpdate && <SaveButton label="common.save" sx={{ alignSelf: 'flex-start' }} />}
            </Stack>
          </Form>
        </CardContent>
      </Card>
    </>
  );
}

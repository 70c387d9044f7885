import { useState } from 'react';
import { useFormContext } from 'react-hook-form';
import { Confirm, Form, SaveButton, SelectInput, setSubmissionErrors, TextInput, useCanAccess, useTranslate } from 'react-admin';
import { Card, CardContent, Stack } from '@mui/material';
import { companySettingsSchema, CURRENCIES, type CompanySettingsResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { FullPageLoader } from '../common/FullPageLoader';
import { LoadError } from '../common/ListParts';
import { ImageUploadInput } from '../common/ImageUploadInput';
import { schemaResolver } from '../common/schemaResolver';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { useSettingsGroup } from './useSettingsForm';

const TIME_ZONES = ['Africa/Mogadishu', 'Africa/Nairobi', 'Africa/Djibouti', 'Africa/Addis_Ababa', 'Asia/Dubai', 'Europe/London', 'UTC'];

type Values = Record<string, unknown>;

const companyResolver = schemaResolver<Values>(companySettingsSchema);

/**
 * The currency is the currency of every wallet and sale (docs/decisions.md, "One currency"): once
 * money exists it is shown read-only with the server's reason; before, it is a choice.
 */
function CurrencyInput({ data }: { data: CompanySettingsResponse }) {
  if (data.currency_locked) {
    return (
      <TextInput
        source="currency"
        label="settings.company.currency"
        readOnly
        helperText={data.currency_locked_reason ?? false}
        slotProps={{ htmlInput: { dir: 'ltr' } }}
      />
    );
  }
  return (
    <SelectInput
      source="currency"
      label="settings.company.currency"
      choices={CURRENCIES.map((c) => ({ id: c, name: c }))}
      translateChoice={false}
      helperText="settings.company.currency_help"
    />
  );
}

/**
 * Asks before a save that changes the currency (amounts are relabelled, not converted, and the
 * choice locks with the first money); confirmed, it saves and puts the server's refusals on the form.
 */
function CurrencyChangeConfirm({
  pending,
  from,
  onClose,
  send,
}: {
  pending: Values | null;
  from: string;
  onClose: () => void;
  send: (values: Values) => Promise<Record<string, string> | undefined>;
}) {
  const translate = useTranslate();
  const { setError } = useFormContext();
  const [saving, setSaving] = useState(false);
  const currency = String(pending?.currency ?? '');
  const confirm = async () => {
    if (!pending) return;
    setSaving(true);
    try {
      const errors = await send(pending);
      if (errors) setSubmissionErrors(errors, setError);
    } finally {
      setSaving(false);
      onClose();
    }
  };
  return (
    <Confirm
      isOpen={pending !== null}
      loading={saving}
      title="settings.company.currency_confirm_title"
      content="settings.company.currency_confirm"
      titleTranslateOptions={{ currency }}
      contentTranslateOptions={{ currency, from }}
      confirm={translate('settings.company.currency_confirm_ok', { currency })}
      onConfirm={confirm}
      onClose={onClose}
    />
  );
}

/** /settings/company: the company's name, logo, contact, currency, time zone and the console footer text. */
export default function CompanySettingsPage() {
  const translate = useTranslate();
  const { data, isPending, error, refetch, save } = useSettingsGroup<CompanySettingsResponse>('company');
  const { canAccess: canUpdate } = useCanAccess({ resource: 'settings', action: 'update company settings' });
  const [pending, setPending] = useState<Values | null>(null);
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
  const send = (values: Values) => {
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
  const submit = async (values: Values) => {
    if (!data.currency_locked && values.currency !== data.currency) {
      setPending(values);
      return undefined;
    }
    return send(values);
  };
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.settings', to: '/settings' }, { label: 'menu.settings_company' }]} />
      <PageTitle title={translate('menu.settings_company')} />
      <Card>
        <CardContent>
          <Form record={data} resolver={companyResolver} onSubmit={submit} disabled={!canUpdate}>
            <Stack sx={{ maxWidth: 640 }}>
              <TextInput source="company_name" label="settings.company.company_name" fullWidth />
              <ImageUploadInput source="logo" label="settings.company.logo" />
              <TextInput source="address" label="settings.company.address" fullWidth multiline />
              <TextInput source="phone" label="settings.company.phone" fullWidth />
              <TextInput source="email" label="settings.company.email" type="email" fullWidth />
              <CurrencyInput data={data} />
              <SelectInput
                source="timezone"
                label="settings.company.timezone"
                choices={[...new Set([data.timezone, ...TIME_ZONES])].map((z) => ({ id: z, name: z }))}
                translateChoice={false}
              />
              <TextInput source="footer_text" label="settings.company.footer_text" helperText="settings.company.footer_help" fullWidth />
              {canUpdate && <SaveButton label="common.save" sx={{ alignSelf: 'flex-start' }} />}
              <CurrencyChangeConfirm pending={pending} from={data.currency} onClose={() => setPending(null)} send={send} />
            </Stack>
          </Form>
        </CardContent>
      </Card>
    </>
  );
}

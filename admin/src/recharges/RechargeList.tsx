import { AutocompleteInput, Datagrid, DateInput, FunctionField, List, ReferenceInput, SelectInput, TextInput, usePermissions, useTranslate } from 'react-admin';
import { Alert, Button } from '@mui/material';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { RECHARGE_STATUSES, type RechargeResponse } from '@app/contracts';
import { PageTitle } from '../common/PageTitle';
import { CsvExportButton } from '../common/CsvExportButton';
import { useSession } from '../providers/useSession';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useReviewCount } from '../layout/useReviewCount';
import { RechargeStatus } from './RechargeStatus';
import { RechargeDetail } from './RechargeDetail';

export { RechargeStatus };

/** /recharges: every sale (a dealer: its own), filters, CSV, and /recharges/{id} opens its detail. */
export default function RechargeList() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const dealer = useSession().user?.user_type === 'dealer';
  const fmt = useCompanyFormat();
  const { permissions } = usePermissions<string[]>();
  const seesCost = !!permissions?.includes('view bundles prices');
  const waiting = useReviewCount();
  const openId = (useParams()['*'] ?? '').split('/')[0];
  // Links from the dashboard carry their filters (?status=completed&from=...&to=...).
  const [params] = useSearchParams();
  const preset = Object.fromEntries(['status', 'from', 'to', 'dealer_id', 'provider_id', 'phone'].flatMap((k) => (params.get(k) ? [[k, params.get(k)!]] : [])));
  const filters = [
    ...(dealer
      ? []
      : [
          <ReferenceInput key="dealer_id" source="dealer_id" reference="users" filter={{ user_type: 'dealer' }} alwaysOn>
            <AutocompleteInput label="wallets.fields.dealer" optionText="name" />
          </ReferenceInput>,
        ]),
    <ReferenceInput key="provider_id" source="provider_id" reference="internet-providers">
      <AutocompleteInput label="recharges.fields.provider" optionText="name" />
    </ReferenceInput>,
    <SelectInput key="status" source="status" label="recharges.fields.status" choices={RECHARGE_STATUSES.map((s) => ({ id: s, name: `recharges.status.${s}` }))} alwaysOn />,
    <DateInput key="from" source="from" label="wallets.fields.from" alwaysOn />,
    <DateInput key="to" source="to" label="wallets.fields.to" alwaysOn />,
    <TextInput key="phone" source="phone" label="recharges.fields.phone" alwaysOn />,
    <TextInput key="q" source="q" label="recharges.fields.reference" />,
  ];
  return (
    <>
      <PageTitle title={translate('menu.recharges')} />
      {waiting > 0 && (
        <Alert
          severity="warning"
          sx={{ mb: 2 }}
          action={
            <Button component={Link} to="/recharges/review" color="inherit" size="small">
              {translate('recharges.review.open_queue')}
            </Button>
          }
        >
          {translate('recharges.review.waiting_count', { smart_count: waiting })}
        </Alert>
      )}
      <List resource="recharges" filters={filters} filterDefaultValues={preset} sort={{ field: 'id', order: 'DESC' }} perPage={25} disableSyncWithLocation title={translate('menu.recharges')} actions={<CsvExportButton path="/recharges/export" filename="recharges" />}>
        <Datagrid bulkActionButtons={false} rowClick={(id) => `/recharges/${id}`}>
          <FunctionField label="recharges.fields.created_at" render={(r: RechargeResponse) => fmt.dateTime(r.created_at)} />
          <FunctionField label="recharges.fields.reference" render={(r: RechargeResponse) => r.reference} />
          {!dealer && <FunctionField label="wallets.fields.dealer" render={(r: RechargeResponse) => r.dealer.name} />}
          <FunctionField label="recharges.fields.bundle" render={(r: RechargeResponse) => `${r.provider_name} · ${r.bundle_name}`} />
          <FunctionField label="recharges.fields.phone" render={(r: RechargeResponse) => r.phone} />
          <FunctionField label="recharges.fields.amount" render={(r: RechargeResponse) => `${r.amount} ${r.currency}`} />
          {seesCost && <FunctionField label="recharges.fields.profit" render={(r: RechargeResponse) => r.profit} />}
          <FunctionField label="recharges.fields.status" render={(r: RechargeResponse) => <RechargeStatus status={r.status} reason={r.review_reason} />} />
        </Datagrid>
      </List>
      <RechargeDetail id={openId || null} onClose={() => navigate('/recharges')} />
    </>
  );
}

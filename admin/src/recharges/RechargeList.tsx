import {
  AutocompleteInput,
  Datagrid,
  DateInput,
  FunctionField,
  ReferenceInput,
  SelectInput,
  SimpleList,
  TextInput,
  usePermissions,
  useTranslate,
} from 'react-admin';
import { Alert, Box, Button, Stack } from '@mui/material';
import { Link, useNavigate, useParams } from 'react-router';
import { PAYMENT_STATES, RECHARGE_STATUSES, type RechargeResponse } from '@app/contracts';
import { Ltr, useLtr } from '../common/Ltr';
import { CsvExportButton } from '../common/CsvExportButton';
import { useIsDealer } from '../auth/identity';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useReviewCount } from '../layout/useReviewCount';
import { RechargeStatus, StateChip } from './RechargeStatus';
import { RechargeDetail } from './RechargeDetail';
import { SaleProfit } from './SaleProfit';
import { useIsPhone } from '../common/useIsPhone';
import { ResourceListPage } from '../common/ResourceListPage';
import { useListUrls, usePresetFilters } from '../common/listUrl';
import { DealerFilterInput } from '../common/userOptions';
import { MODE_CHOICES, ModeChip } from '../api-keys/ModeChip';
import { SortMenuButton } from '../common/SortMenuButton';
import { SoldItem } from '../common/ContentText';

export { RechargeStatus };

/**
 * /recharges: every sale (a dealer: its own), filters, CSV, and /recharges/{id} opens its detail.
 * Live sales unless the Mode filter asks for the test ones (a test key's, on the sandbox).
 */
export default function RechargeList() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const dealer = useIsDealer();
  const fmt = useCompanyFormat();
  const { permissions } = usePermissions<string[]>();
  const seesCost = !!permissions?.includes('view bundles prices');
  const waiting = useReviewCount();
  const phone = useIsPhone();
  const ltr = useLtr();
  const openId = (useParams()['*'] ?? '').split('/')[0];
  // The filters, sort and page are in the URL; a sale opens at /recharges/{id} with them kept.
  const urls = useListUrls('/recharges');
  // Links from the dashboard carry their filters (?status=completed&from=...&to=...): moved into the list's own
  // (?payment_state=refund_due: the money to pay back by hand).
  const preset = usePresetFilters({
    status: 'status',
    payment_state: 'payment_state',
    from: 'from',
    to: 'to',
    dealer_id: 'dealer_id',
    provider_id: 'provider_id',
    phone: 'phone',
  });
  const filters = [
    ...(dealer ? [] : [<DealerFilterInput key="dealer_id" source="dealer_id" label="wallets.fields.dealer" alwaysOn />]),
    // Operators only for those who may read them (a dealer reads its own).
    ...(dealer || permissions?.includes('view internet providers')
      ? [
          <ReferenceInput
            key="provider_id"
            source="provider_id"
            reference={dealer ? 'dealer-providers' : 'internet-providers'}
            label="recharges.fields.provider"
          >
            <AutocompleteInput label="recharges.fields.provider" optionText="name" />
          </ReferenceInput>,
        ]
      : []),
    <SelectInput
      key="status"
      source="status"
      label="recharges.fields.status"
      choices={RECHARGE_STATUSES.map((s) => ({ id: s, name: `recharges.status.${s}` }))}
      alwaysOn
    />,
    // Where the customer's payment stands; "To pay back by hand" (refund_due) lists the money owed back.
    <SelectInput
      key="payment_state"
      source="payment_state"
      label="recharges.fields.payment_state"
      choices={PAYMENT_STATES.map((s) => ({ id: s, name: `recharges.payment_states.${s}` }))}
      alwaysOn
    />,
    // No mode chosen is the API's default, live: the box says so rather than showing a blank.
    <SelectInput key="mode" source="mode" label="test_mode.mode" choices={MODE_CHOICES} format={(v?: string) => v || 'live'} alwaysOn />,
    <DateInput key="from" source="from" label="wallets.fields.from" alwaysOn />,
    <DateInput key="to" source="to" label="wallets.fields.to" alwaysOn />,
    <TextInput key="phone" source="phone" label="recharges.fields.phone" alwaysOn />,
    <TextInput key="q" source="q" label="recharges.fields.reference" />,
  ];
  if (preset) return preset;
  return (
    <ResourceListPage
      resource="recharges"
      title={translate('menu.recharges')}
      intro={
        waiting > 0 && (
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
        )
      }
      empty={dealer ? 'empty.recharges_dealer' : 'empty.recharges'}
      filters={filters}
      sort={{ field: 'id', order: 'DESC' }}
      actions={
        <>
          {/* No column headers on a phone: the Date column's sort (newest first, then turned around) is here. */}
          {phone && <SortMenuButton fields={[{ source: 'created_at', label: 'recharges.fields.created_at', order: 'DESC' }]} />}
          <CsvExportButton path="/recharges/export" filename="recharges" />
        </>
      }
      phone={
        <SimpleList
          // The Test chip beside the bundle: the tertiary corner is drawn faded.
          primaryText={(r: RechargeResponse) => (
            <Stack component="span" direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
              <span>
                <SoldItem names={[r.provider_name, r.bundle_name]} />
              </span>
              <ModeChip mode={r.mode} />
            </Stack>
          )}
          // The sale's date and time (the company's time zone, as the desktop column) on a line of its own.
          secondaryText={(r: RechargeResponse) => (
            <>
              <Box component="span" sx={{ display: 'block' }}>
                {`${ltr(r.phone)} · ${ltr(`${r.amount} ${r.currency}`)}${dealer ? '' : ` · ${r.dealer.name}`}`}
              </Box>
              <Box component="span" sx={{ display: 'block' }}>
                {fmt.dateTime(r.created_at)}
              </Box>
            </>
          )}
          tertiaryText={(r: RechargeResponse) => <SaleState r={r} stacked />}
          linkType={false}
          rowClick={(id) => urls.record(id)}
        />
      }
      desktop={
        <Datagrid bulkActionButtons={false} rowClick={(id) => urls.record(id)}>
          <FunctionField
            label="recharges.fields.created_at"
            sortBy="created_at"
            sortByOrder="DESC"
            render={(r: RechargeResponse) => fmt.dateTime(r.created_at)}
          />
          <FunctionField label="recharges.fields.reference" render={(r: RechargeResponse) => <Ltr>{r.reference}</Ltr>} />
          {!dealer && <FunctionField label="wallets.fields.dealer" render={(r: RechargeResponse) => r.dealer.name} />}
          <FunctionField label="recharges.fields.bundle" render={(r: RechargeResponse) => <SoldItem names={[r.provider_name, r.bundle_name]} />} />
          <FunctionField label="recharges.fields.phone" render={(r: RechargeResponse) => <Ltr>{r.phone}</Ltr>} />
          <FunctionField label="recharges.fields.amount" render={(r: RechargeResponse) => <Ltr>{`${r.amount} ${r.currency}`}</Ltr>} />
          {seesCost && <FunctionField label="recharges.fields.profit" render={(r: RechargeResponse) => <SaleProfit r={r} />} />}
          <FunctionField label="recharges.fields.status" render={(r: RechargeResponse) => <SaleState r={r} />} />
        </Datagrid>
      }
      after={<RechargeDetail id={openId || null} onClose={() => navigate(urls.list)} />}
    />
  );
}

/**
 * A row's status, and beside it (`stacked`: under it, a phone's narrow corner) "To pay back by hand"
 * while the customer's money is owed back (refund_due), and (a table row) "Test" for a sale on the sandbox.
 */
function SaleState({ r, stacked = false }: { r: RechargeResponse; stacked?: boolean }) {
  const status = <RechargeStatus status={r.status} reason={r.review_summary ?? r.review_reason} payment={r.payment_state} />;
  const owed = r.payment_state === 'refund_due';
  const test = r.mode === 'test' && !stacked;
  if (!owed && !test) return status;
  return (
    <Stack direction={stacked ? 'column' : 'row'} sx={{ gap: 0.5, flexWrap: 'wrap', alignItems: stacked ? 'flex-end' : 'center' }}>
      {status}
      {owed && <StateChip kind="payment" state={r.payment_state} />}
      {test && <ModeChip mode="test" />}
    </Stack>
  );
}

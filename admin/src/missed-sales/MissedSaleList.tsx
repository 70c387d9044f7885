import { Datagrid, DateInput, FunctionField, SimpleList, usePermissions, useTranslate } from 'react-admin';
import { Button, Typography } from '@mui/material';
import { Link } from 'react-router';
import type { MissedSaleResponse } from '@app/contracts';
import { CsvExportButton } from '../common/CsvExportButton';
import { useIsDealer } from '../auth/identity';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { ResourceListPage } from '../common/ResourceListPage';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { usePresetFilters } from '../common/listUrl';
import { DealerFilterInput } from '../common/userOptions';
import { SoldItem } from '../common/ContentText';

/** One purchase refused because the dealer's wallet could not pay (GET /missed-sales). */
type MissedSale = MissedSaleResponse;

/**
 * /missed-sales: purchases refused because a wallet could not pay the bundle's cost (a dealer: its
 * own), filtered by dealer and days, with their CSV. The dashboard's card opens it on today.
 */
export default function MissedSaleList() {
  const translate = useTranslate();
  const dealer = useIsDealer();
  const fmt = useCompanyFormat();
  const { permissions } = usePermissions<string[]>();
  const seesCost = !!permissions?.includes('view bundles prices');
  // The dashboard's links preset the days (and dealer): ?from=...&to=... moves into the list's own filter.
  const preset = usePresetFilters(dealer ? { from: 'from', to: 'to' } : { from: 'from', to: 'to', dealer_id: 'dealer_id' });
  const money = (v: string | undefined) => (v === undefined ? '—' : `${v} ${fmt.currency}`);
  const filters = [
    ...(dealer ? [] : [<DealerFilterInput key="dealer_id" source="dealer_id" label="wallets.fields.dealer" alwaysOn />]),
    <DateInput key="from" source="from" label="wallets.fields.from" alwaysOn />,
    <DateInput key="to" source="to" label="wallets.fields.to" alwaysOn />,
  ];
  if (preset) return preset;
  const title = translate('menu.missed_sales');
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.recharges', to: '/recharges' }, { label: 'menu.missed_sales' }]} />
      <ResourceListPage
        resource="missed-sales"
        title={title}
        titleActions={
          dealer && (
            <Button component={Link} to="/my-wallet?request=1" variant="contained">
              {translate('missed_sales.top_up')}
            </Button>
          )
        }
        intro={
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
            {translate(dealer ? 'missed_sales.help_dealer' : 'missed_sales.help_admin')}
          </Typography>
        }
        empty={false}
        filters={filters}
        sort={{ field: 'id', order: 'DESC' }}
        actions={<CsvExportButton path="/missed-sales/export" filename="missed-sales" />}
        phone={
          <SimpleList
            primaryText={(r: MissedSale) => <SoldItem names={[r.bundle_name]} />}
            secondaryText={(r: MissedSale) => (dealer ? money(r.amount) : `${r.dealer.name} · ${money(r.amount)}`)}
            tertiaryText={(r: MissedSale) => fmt.dateTime(r.created_at)}
            linkType={false}
          />
        }
        desktop={
          <Datagrid bulkActionButtons={false} rowClick={false}>
            <FunctionField label="recharges.fields.created_at" render={(r: MissedSale) => fmt.dateTime(r.created_at)} />
            {!dealer && (
              <FunctionField
                label="wallets.fields.dealer"
                render={(r: MissedSale) => (r.dealer ? `${r.dealer.name}${r.dealer.dealer_code ? ` (${r.dealer.dealer_code})` : ''}` : '—')}
              />
            )}
            <FunctionField label="recharges.fields.bundle" render={(r: MissedSale) => <SoldItem names={[r.bundle_name]} />} />
            <FunctionField label="recharges.fields.amount" render={(r: MissedSale) => money(r.amount)} />
            {seesCost && <FunctionField label="recharges.fields.cost" render={(r: MissedSale) => money(r.cost)} />}
          </Datagrid>
        }
      />
    </>
  );
}

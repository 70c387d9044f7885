import { AutocompleteInput, Datagrid, FunctionField, ReferenceInput, SimpleList, useTranslate } from 'react-admin';
import { Box, Typography } from '@mui/material';
import { useNavigate, useParams } from 'react-router';
import type { RechargeResponse } from '@app/contracts';
import { useUserPermissions } from '../auth/identity';
import { hasPermission } from '../permissions/permissions';
import { Ltr, useLtr } from '../common/Ltr';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { ResourceListPage } from '../common/ResourceListPage';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useListUrls } from '../common/listUrl';
import { StateChip } from './RechargeStatus';
import { RechargeDetail, waitingSince } from './RechargeDetail';
import { DealerFilterInput } from '../common/userOptions';
import { SmsCases } from './SmsCases';
import { SoldItem } from '../common/ContentText';

const BASE = '/recharges/review';

/**
 * /recharges/review: the sales whose outcome neither the gateway nor the aggregator could tell
 * within the retry window, oldest first, with why and how long each has waited. A row opens the
 * sale's drawer (/recharges/review/{id}) with its remote calls and the Settle panel.
 */
export default function ReviewList() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const ltr = useLtr();
  const fmt = useCompanyFormat();
  const openId = (useParams()['*'] ?? '').split('/')[0];
  // The filters and page are in the URL; a sale opens at /recharges/review/{id} with them kept.
  const urls = useListUrls(BASE);
  const waited = (r: RechargeResponse) => {
    const since = waitingSince(r);
    return since ? fmt.duration(Date.now() - new Date(since).getTime()) : '—';
  };
  // Each filter only for those who may read its choices (a reviewer may not read operators;
  // dealers' names come from /user-options, open to whoever reads sales).
  const permissions = useUserPermissions();
  const filters = [
    <DealerFilterInput key="dealer_id" source="dealer_id" label="wallets.fields.dealer" alwaysOn />,
    ...(hasPermission(permissions, 'view internet providers')
      ? [
          <ReferenceInput key="provider_id" source="provider_id" reference="internet-providers" label="recharges.fields.provider" alwaysOn>
            <AutocompleteInput label="recharges.fields.provider" optionText="name" />
          </ReferenceInput>,
        ]
      : []),
  ];
  const title = translate('menu.recharges_review');
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.recharges', to: '/recharges' }, { label: 'menu.recharges_review' }]} />
      <ResourceListPage
        resource="recharges"
        storeKey="recharges.review"
        filter={{ status: 'needs_review' }}
        title={title}
        intro={
          <>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 2, maxWidth: 900 }}>
              {translate('recharges.review.help')}
            </Typography>
            <SmsCases onOpenSale={(id) => navigate(urls.record(id))} />
          </>
        }
        empty={<Empty />}
        filters={filters}
        sort={{ field: 'id', order: 'ASC' }}
        phone={
          <SimpleList
            primaryText={(r: RechargeResponse) => `${ltr(r.reference)} · ${ltr(`${r.amount} ${r.currency}`)}`}
            secondaryText={(r: RechargeResponse) => r.review_summary ?? r.review_reason ?? ''}
            tertiaryText={(r: RechargeResponse) => translate('recharges.review.waited', { time: waited(r) })}
            linkType={false}
            rowClick={(id) => urls.record(id)}
          />
        }
        desktop={
          <Datagrid bulkActionButtons={false} rowClick={(id) => urls.record(id)}>
            <FunctionField label="recharges.review.waited_column" render={(r: RechargeResponse) => <strong>{waited(r)}</strong>} />
            <FunctionField label="recharges.fields.reference" render={(r: RechargeResponse) => <Ltr>{r.reference}</Ltr>} />
            <FunctionField label="wallets.fields.dealer" render={(r: RechargeResponse) => r.dealer.name} />
            <FunctionField label="recharges.fields.bundle" render={(r: RechargeResponse) => <SoldItem names={[r.provider_name, r.bundle_name]} />} />
            <FunctionField label="recharges.fields.phone" render={(r: RechargeResponse) => <Ltr>{r.phone}</Ltr>} />
            <FunctionField label="recharges.fields.amount" render={(r: RechargeResponse) => <Ltr>{`${r.amount} ${r.currency}`}</Ltr>} />
            <FunctionField label="recharges.fields.payment_state" render={(r: RechargeResponse) => <StateChip kind="payment" state={r.payment_state} />} />
            <FunctionField label="recharges.fields.delivery_state" render={(r: RechargeResponse) => <StateChip kind="delivery" state={r.delivery_state} />} />
            <FunctionField
              label="recharges.fields.review_reason"
              render={(r: RechargeResponse) => <Box sx={{ maxWidth: 360, whiteSpace: 'normal' }}>{r.review_summary ?? r.review_reason ?? '—'}</Box>}
            />
          </Datagrid>
        }
        after={<RechargeDetail id={openId || null} onClose={() => navigate(urls.list)} />}
      />
    </>
  );
}

function Empty() {
  const translate = useTranslate();
  return (
    <Box sx={{ p: 4, textAlign: 'center' }}>
      <Typography color="text.secondary">{translate('recharges.review.empty')}</Typography>
    </Box>
  );
}

import { useState } from 'react';
import { Datagrid, FunctionField, List, SelectInput, SimpleList, useListContext, useNotify, usePermissions, useTranslate, type Identifier } from 'react-admin';
import { Box, Button, Chip, Stack, Typography } from '@mui/material';
import ReplayIcon from '@mui/icons-material/Replay';
import { WEBHOOK_DELIVERY_STATUSES, WEBHOOK_EVENT_TYPES, type WebhookDeliveryResponse } from '@app/contracts';
import { ListEmpty, ListError, ListTopBar, usePhoneFilters } from '../common/ListParts';
import { Ltr } from '../common/Ltr';
import { useIsPhone } from '../common/useIsPhone';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { useConsoleDataProvider } from '../providers/dataProvider';
import { serverMessage } from '../providers/errors';
import { DetailList } from '../common/DetailList';
import { DetailDrawer } from '../common/DetailDrawer';
import { MODE_CHOICES, ModeChip } from '../api-keys/ModeChip';

export const DELIVERIES = 'webhook-deliveries';
/** The answer excerpt shown in a row: the drawer shows what the server kept (500 characters). */
const ROW_EXCERPT = 80;

/** An event type's label key: i18next reads '.' inside a key as nesting. */
export const typeLabel = (type: string) => `webhooks.types.${type.replace('.', '_')}`;

const excerpt = (text: string | null, max = ROW_EXCERPT) => (!text ? '' : text.length > max ? `${text.slice(0, max)}…` : text);

function DeliveryStatus({ d }: { d: WebhookDeliveryResponse }) {
  const translate = useTranslate();
  if (d.status === 'delivered') return <Chip size="small" color="success" variant="outlined" label={translate('webhooks.status.delivered')} />;
  if (d.status === 'failed') return <Chip size="small" color="error" variant="outlined" label={translate('webhooks.status.failed')} />;
  // Waiting for its first attempt, or for the next one after a failed try.
  return <Chip size="small" color="warning" variant="outlined" label={translate(d.attempts ? 'webhooks.status.retrying' : 'webhooks.status.pending')} />;
}

/** The receiver's last answer: its HTTP status (none: it never answered) and the start of its body or the error. */
function LastAnswer({ d, max }: { d: WebhookDeliveryResponse; max?: number }) {
  const translate = useTranslate();
  if (!d.attempts && !d.last_answer)
    return (
      <Typography variant="body2" color="text.secondary">
        {translate('webhooks.not_tried')}
      </Typography>
    );
  const code = d.last_status_code;
  return (
    <Stack direction="row" sx={{ gap: 1, alignItems: 'center', minWidth: 0 }}>
      <Chip
        size="small"
        color={code === null ? 'default' : code < 300 ? 'success' : code < 500 ? 'warning' : 'error'}
        label={code === null ? translate('webhooks.no_answer') : code}
      />
      {d.last_answer && (
        <Box component="code" dir="ltr" sx={{ fontFamily: 'monospace', fontSize: '0.8em', wordBreak: 'break-all', color: 'text.secondary' }}>
          {excerpt(d.last_answer, max)}
        </Box>
      )}
    </Stack>
  );
}

/** Resend now: the same event (id and body) once more; refused while an attempt is under way. */
function ResendButton({ d, onDone, variant = 'text' }: { d: WebhookDeliveryResponse; onDone: () => void; variant?: 'text' | 'outlined' }) {
  const translate = useTranslate();
  const notify = useNotify();
  const dataProvider = useConsoleDataProvider();
  const [busy, setBusy] = useState(false);
  return (
    <Button
      size="small"
      variant={variant}
      startIcon={<ReplayIcon />}
      disabled={busy}
      aria-label={`${translate('webhooks.resend')} ${d.event_id}`}
      onClick={async (e) => {
        e.stopPropagation();
        setBusy(true);
        try {
          const res = await dataProvider.resendWebhook({ id: d.h_id });
          notify(res.message ?? 'webhooks.resent', { type: 'success' });
          onDone();
        } catch (err) {
          notify(serverMessage(err), { type: 'error' });
        } finally {
          setBusy(false);
        }
      }}
    >
      {translate('webhooks.resend')}
    </Button>
  );
}

function DeliveryRows({ showDealer, canManage, path }: { showDealer: boolean; canManage: boolean; path: (id: Identifier) => string }) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const phone = useIsPhone();
  const { refetch } = useListContext();
  if (phone)
    return (
      <SimpleList
        // The Test chip beside the event: the tertiary corner is drawn faded.
        primaryText={(d: WebhookDeliveryResponse) => (
          <Stack component="span" direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap' }}>
            <span>{translate(typeLabel(d.type))}</span>
            <ModeChip mode={d.mode} />
          </Stack>
        )}
        secondaryText={(d: WebhookDeliveryResponse) => (
          <span>
            {fmt.dateTime(d.created_at)}
            {showDealer ? ` · ${d.dealer.name}` : ''} · {translate('webhooks.attempts_count', { smart_count: d.attempts })}
            {d.last_status_code !== null ? ` · ${d.last_status_code}` : ''}
          </span>
        )}
        tertiaryText={(d: WebhookDeliveryResponse) => <DeliveryStatus d={d} />}
        rowClick={(id) => path(id)}
        empty={<ListEmpty message="webhooks.log_none_match" />}
      />
    );
  return (
    <Datagrid bulkActionButtons={false} rowClick={(id) => path(id)} empty={<ListEmpty message="webhooks.log_none_match" />}>
      <FunctionField label="webhooks.fields.created_at" render={(d: WebhookDeliveryResponse) => fmt.dateTime(d.created_at)} />
      <FunctionField
        label="webhooks.fields.type"
        render={(d: WebhookDeliveryResponse) => (
          <Stack>
            <span>{translate(typeLabel(d.type))}</span>
            <Box component="code" dir="ltr" sx={{ fontFamily: 'monospace', fontSize: '0.75em', color: 'text.secondary' }}>
              {d.type}
            </Box>
          </Stack>
        )}
      />
      {showDealer && <FunctionField label="webhooks.fields.dealer" render={(d: WebhookDeliveryResponse) => d.dealer.name} />}
      <FunctionField label="test_mode.mode" render={(d: WebhookDeliveryResponse) => <ModeChip mode={d.mode} showLive />} />
      <FunctionField label="webhooks.fields.status" render={(d: WebhookDeliveryResponse) => <DeliveryStatus d={d} />} />
      <FunctionField label="webhooks.fields.attempts" render={(d: WebhookDeliveryResponse) => d.attempts} />
      <FunctionField
        label="webhooks.fields.next_attempt_at"
        render={(d: WebhookDeliveryResponse) => (d.status === 'pending' && d.next_attempt_at ? fmt.dateTime(d.next_attempt_at) : '—')}
      />
      <FunctionField label="webhooks.fields.last_answer" render={(d: WebhookDeliveryResponse) => <LastAnswer d={d} />} />
      {canManage && <FunctionField label="" render={(d: WebhookDeliveryResponse) => <ResendButton d={d} onDone={() => void refetch()} />} />}
    </Datagrid>
  );
}

/** The JSON sent, indented for reading (the receiver got it byte for byte as stored). */
function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** One delivery over the log (/webhooks/{id}): its attempts, the last answer in full, the body sent, and resend. */
export function DeliveryDrawer({
  d,
  open,
  onClose,
  canManage,
  onChanged,
}: {
  d: WebhookDeliveryResponse | null;
  open: boolean;
  onClose: () => void;
  canManage: boolean;
  onChanged: () => void;
}) {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const title = d ? translate(typeLabel(d.type)) : '';
  return (
    <DetailDrawer open={open} onClose={onClose} title={title} closeLabel={translate('webhooks.close')} width={600}>
      {d && (
        <>
          <DetailList>
            <dt>{translate('webhooks.fields.event_id')}</dt>
            <dd>
              <Box component="code" sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}>
                <Ltr>{d.event_id}</Ltr>
              </Box>
            </dd>
            <dt>{translate('webhooks.fields.dealer')}</dt>
            <dd>{d.dealer.name}</dd>
            <dt>{translate('test_mode.mode')}</dt>
            <dd>
              <ModeChip mode={d.mode} showLive />
            </dd>
            <dt>{translate('webhooks.fields.status')}</dt>
            <dd>
              <DeliveryStatus d={d} />
            </dd>
            <dt>{translate('webhooks.fields.attempts')}</dt>
            <dd>{d.attempts}</dd>
            <dt>{translate('webhooks.fields.created_at')}</dt>
            <dd>{fmt.preciseTime(d.created_at)}</dd>
            {d.last_attempt_at && (
              <>
                <dt>{translate('webhooks.fields.last_attempt_at')}</dt>
                <dd>{fmt.preciseTime(d.last_attempt_at)}</dd>
              </>
            )}
            {d.status === 'pending' && d.next_attempt_at && (
              <>
                <dt>{translate('webhooks.fields.next_attempt_at')}</dt>
                <dd>{fmt.preciseTime(d.next_attempt_at)}</dd>
              </>
            )}
            {d.delivered_at && (
              <>
                <dt>{translate('webhooks.fields.delivered_at')}</dt>
                <dd>{fmt.preciseTime(d.delivered_at)}</dd>
              </>
            )}
            <dt>{translate('webhooks.fields.last_answer')}</dt>
            <dd>
              <LastAnswer d={d} max={500} />
            </dd>
          </DetailList>
          {d.status === 'failed' && <Typography color="error">{translate('webhooks.failed_help')}</Typography>}
          {canManage && (
            <Box>
              <ResendButton d={d} onDone={onChanged} variant="outlined" />
            </Box>
          )}
          <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
            {translate('webhooks.body_sent')}
          </Typography>
          <Box
            component="pre"
            dir="ltr"
            sx={{
              m: 0,
              p: 1.5,
              bgcolor: 'action.hover',
              borderRadius: 1,
              overflowX: 'auto',
              fontSize: '0.8em',
              whiteSpace: 'pre-wrap',
              wordBreak: 'break-all',
            }}
          >
            {prettyBody(d.body)}
          </Box>
        </>
      )}
    </DetailDrawer>
  );
}

/**
 * The delivery log (GET /webhook-deliveries): every event with its status, attempts, next try and
 * the receiver's last answer, newest first, filtered by status, type and mode (and, for an admin, by the
 * dealer chosen above it). Refreshed every few seconds, since the dispatcher works in the background.
 */
export function WebhookDeliveryLog({ showDealer, path }: { showDealer: boolean; path: (id: Identifier) => string }) {
  const translate = useTranslate();
  const { permissions } = usePermissions<string[]>();
  const canManage = !!permissions?.includes('manage webhooks');
  const filters = usePhoneFilters([
    <SelectInput
      key="status"
      source="status"
      label="webhooks.fields.status"
      alwaysOn
      choices={WEBHOOK_DELIVERY_STATUSES.map((s) => ({ id: s, name: `webhooks.status.${s}` }))}
    />,
    <SelectInput key="type" source="type" label="webhooks.fields.type" alwaysOn choices={WEBHOOK_EVENT_TYPES.map((t) => ({ id: t, name: typeLabel(t) }))} />,
    // Both modes unless one is chosen: a test key's events are sent to the same receiver.
    <SelectInput key="mode" source="mode" label="test_mode.mode" alwaysOn choices={MODE_CHOICES} />,
  ]);
  return (
    <Box component="section" aria-label={translate('webhooks.log_title')}>
      <Typography variant="h6" component="h2" sx={{ mt: 3, mb: 1 }}>
        {translate('webhooks.log_title')}
      </Typography>
      <List
        resource={DELIVERIES}
        // The page's guard has checked 'view webhooks' (webhooks/index.ts); the registry's canAccess knows no such endpoint.
        disableAuthentication
        filters={filters}
        sort={{ field: 'id', order: 'DESC' }}
        perPage={25}
        title={translate('webhooks.title')}
        actions={<ListTopBar />}
        queryOptions={{ refetchInterval: 5000 }}
        empty={<ListEmpty message="webhooks.log_empty" />}
        error={<ListError />}
      >
        <DeliveryRows showDealer={showDealer} canManage={canManage} path={path} />
      </List>
    </Box>
  );
}

import { AutocompleteInput, Datagrid, DateInput, FunctionField, List, ReferenceInput, SelectInput, TextInput, useRecordContext, useTranslate } from 'react-admin';
import { Box, Chip, Table, TableBody, TableCell, TableHead, TableRow, Typography } from '@mui/material';
import { PageTitle } from '../common/PageTitle';
import { useCompanyFormat } from '../common/useCompanyFormat';

interface LogEntry {
  id: number;
  actor: { id: number; name: string } | null;
  action: string;
  subject_type: string | null;
  subject_id: number | null;
  description: string | null;
  before: unknown;
  after: unknown;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
}

const SUBJECTS = ['user', 'role', 'banner', 'provider', 'category', 'bundle', 'payment_method', 'contact', 'area', 'settings', 'wallet', 'wallet_top_up_request', 'recharge', 'dealer_provider', 'dealer_category', 'dealer_bundle'];
const show = (v: unknown) => (v === undefined ? '' : v === null ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** /logs: the activity log, newest first; a row opens the change as a before/after table. Nothing here can change it. */
export default function LogList() {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const filters = [
    <ReferenceInput key="actor_id" source="actor_id" reference="users" alwaysOn>
      <AutocompleteInput label="logs.fields.actor" optionText="name" />
    </ReferenceInput>,
    <TextInput key="action" source="action" label="logs.fields.action" alwaysOn />,
    <SelectInput key="subject_type" source="subject_type" label="logs.fields.subject" choices={SUBJECTS.map((s) => ({ id: s, name: s }))} translateChoice={false} alwaysOn />,
    <DateInput key="from" source="from" label="wallets.fields.from" alwaysOn />,
    <DateInput key="to" source="to" label="wallets.fields.to" alwaysOn />,
    <TextInput key="q" source="q" label="logs.fields.search" />,
  ];
  return (
    <>
      <PageTitle title={translate('menu.logs')} />
      <List resource="logs" filters={filters} sort={{ field: 'id', order: 'DESC' }} perPage={25} disableSyncWithLocation actions={false} title={translate('menu.logs')}>
        <Datagrid bulkActionButtons={false} rowClick="expand" expand={<Change />}>
          <FunctionField label="logs.fields.at" render={(l: LogEntry) => fmt.dateTime(l.created_at)} />
          <FunctionField label="logs.fields.actor" render={(l: LogEntry) => l.actor?.name ?? translate('wallets.system')} />
          <FunctionField label="logs.fields.action" render={(l: LogEntry) => <Chip size="small" variant="outlined" label={l.action} />} />
          <FunctionField label="logs.fields.subject" render={(l: LogEntry) => (l.subject_type ? `${l.subject_type}${l.subject_id ? ` #${l.subject_id}` : ''}` : '—')} />
          <FunctionField label="logs.fields.description" render={(l: LogEntry) => l.description ?? ''} />
          <FunctionField label="logs.fields.ip" render={(l: LogEntry) => l.ip ?? ''} />
        </Datagrid>
      </List>
    </>
  );
}

/** The change as a table: each field that differs, its value before and after. */
function Change() {
  const l = useRecordContext<LogEntry>();
  const translate = useTranslate();
  if (!l) return null;
  const before = (l.before && typeof l.before === 'object' ? l.before : {}) as Record<string, unknown>;
  const after = (l.after && typeof l.after === 'object' ? l.after : {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  return (
    <Box sx={{ px: 2, pb: 2 }}>
      {keys.length === 0 ? (
        <Typography variant="body2" color="text.secondary">{translate('logs.no_fields')}</Typography>
      ) : (
        <Table size="small" aria-label={translate('logs.change')}>
          <TableHead>
            <TableRow>
              <TableCell>{translate('logs.fields.field')}</TableCell>
              <TableCell>{translate('logs.fields.before')}</TableCell>
              <TableCell>{translate('logs.fields.after')}</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {keys.map((k) => (
              <TableRow key={k}>
                <TableCell sx={{ fontWeight: 600 }}>{k}</TableCell>
                <TableCell sx={{ color: 'error.main', wordBreak: 'break-word' }}>{show(before[k])}</TableCell>
                <TableCell sx={{ color: 'success.main', wordBreak: 'break-word' }}>{show(after[k])}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      {l.user_agent && <Typography variant="caption" color="text.secondary">{l.user_agent}</Typography>}
    </Box>
  );
}

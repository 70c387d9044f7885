import { useState } from 'react';
import {
  AutocompleteInput,
  Datagrid,
  DateInput,
  FunctionField,
  RecordContextProvider,
  ReferenceInput,
  SelectInput,
  SimpleList,
  TextInput,
  useGetOne,
  useListContext,
  useRecordContext,
  useTranslate,
} from 'react-admin';
import { useNavigate, useParams } from 'react-router';
import {
  Box,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Button,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@mui/material';
import { Ltr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { ResourceListPage } from '../common/ResourceListPage';
import { LOG_ACTIONS, LOG_SUBJECTS, LogSentence, type LogEntry } from './logSentence';
import { USER_OPTIONS_SORT } from '../common/userOptions';
import { MONEY_FIELDS, fieldLabel, fieldValue } from './logFields';

/**
 * /logs: the activity log, newest first, one sentence per entry in the user's language ("Admin
 * User assigned permissions to role Editors", the subject linked to its page); a row opens the
 * change as a before/after table. Phones get a simple list and their filters behind a button.
 * /logs/{id} opens one entry (react-admin's record URL of the logs resource). Nothing here can
 * change the log.
 */
export default function LogList() {
  const translate = useTranslate();
  const navigate = useNavigate();
  const openId = (useParams()['*'] ?? '').split('/')[0];
  const fmt = useCompanyFormat();
  const filters = [
    <ReferenceInput key="actor_id" source="actor_id" reference="user-options" sort={USER_OPTIONS_SORT} label="logs.fields.actor" alwaysOn>
      <AutocompleteInput label="logs.fields.actor" optionText="name" />
    </ReferenceInput>,
    <SelectInput
      key="action"
      source="action"
      label="logs.fields.action"
      choices={LOG_ACTIONS.map((a) => ({ id: a, name: `logs.action_names.${a}` }))}
      alwaysOn
    />,
    <SelectInput
      key="subject_type"
      source="subject_type"
      label="logs.fields.subject"
      choices={LOG_SUBJECTS.map((s) => ({ id: s, name: `logs.subject_types.${s}` }))}
      alwaysOn
    />,
    <DateInput key="from" source="from" label="wallets.fields.from" alwaysOn />,
    <DateInput key="to" source="to" label="wallets.fields.to" alwaysOn />,
    <TextInput key="q" source="q" label="logs.fields.search" />,
  ];
  return (
    <ResourceListPage
      resource="logs"
      title={translate('menu.logs')}
      empty="logs.empty"
      filters={filters}
      sort={{ field: 'id', order: 'DESC' }}
      phone={<PhoneLogs />}
      desktop={
        <Datagrid bulkActionButtons={false} rowClick="expand" expand={<Change />}>
          <FunctionField
            label="logs.fields.at"
            render={(l: LogEntry) => (
              <Box component="span" sx={{ whiteSpace: 'nowrap' }}>
                {fmt.dateTime(l.created_at)}
              </Box>
            )}
          />
          <FunctionField label="logs.what" render={(l: LogEntry) => <LogSentence entry={l} />} />
          <FunctionField
            label="logs.fields.description"
            render={(l: LogEntry) => (l.description ? <Box sx={{ maxWidth: 320, whiteSpace: 'normal', color: 'text.secondary' }}>{l.description}</Box> : '')}
          />
          <FunctionField label="logs.fields.ip" render={(l: LogEntry) => <Ltr>{l.ip}</Ltr>} />
        </Datagrid>
      }
      after={<LinkedEntry id={openId || null} onClose={() => navigate('/logs')} />}
    />
  );
}

/** The entry a URL names (/logs/{id}), in the dialog phones use. */
function LinkedEntry({ id, onClose }: { id: string | null; onClose: () => void }) {
  const { data } = useGetOne<LogEntry>('logs', { id: id as unknown as number }, { enabled: !!id, retry: false });
  return <EntryDialog entry={id && data && String(data.id) === id ? data : undefined} onClose={onClose} />;
}

/** One entry's change in a dialog, titled with its time. */
function EntryDialog({ entry, onClose }: { entry: LogEntry | undefined; onClose: () => void }) {
  const fmt = useCompanyFormat();
  const translate = useTranslate();
  return (
    <Dialog open={!!entry} onClose={onClose} fullWidth>
      <DialogTitle>{entry ? fmt.dateTime(entry.created_at) : ''}</DialogTitle>
      <DialogContent sx={{ px: 1 }}>
        {entry && (
          <RecordContextProvider value={entry}>
            <Change />
          </RecordContextProvider>
        )}
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>{translate('common.close')}</Button>
      </DialogActions>
    </Dialog>
  );
}

/** Phones: one sentence per entry with its time; tapping one opens the change in a dialog. */
function PhoneLogs() {
  const fmt = useCompanyFormat();
  const { data = [] } = useListContext<LogEntry>();
  const [openId, setOpenId] = useState<number | null>(null);
  const open = data.find((l) => l.id === openId);
  return (
    <>
      <SimpleList<LogEntry>
        primaryText={(l) => <LogSentence entry={l} link={false} />}
        secondaryText={(l) => fmt.dateTime(l.created_at)}
        tertiaryText={(l) => <Ltr>{l.ip}</Ltr>}
        linkType={false}
        rowClick={(id) => {
          setOpenId(Number(id));
          return false;
        }}
        rowSx={() => ({ '& .MuiListItemText-primary': { whiteSpace: 'normal', overflowWrap: 'anywhere' } })}
      />
      <EntryDialog entry={open} onClose={() => setOpenId(null)} />
    </>
  );
}

/**
 * The entry in full: its sentence, the kind of action, and each field that changed, before and
 * after, named and written in the user's language (logFields.ts: money in major units).
 */
function Change() {
  const l = useRecordContext<LogEntry>();
  const translate = useTranslate();
  const { currency } = useCompanyFormat();
  if (!l) return null;
  const before = (l.before && typeof l.before === 'object' ? l.before : {}) as Record<string, unknown>;
  const after = (l.after && typeof l.after === 'object' ? l.after : {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  return (
    <Box sx={{ px: 2, pb: 2 }}>
      <Stack direction="row" sx={{ gap: 1, alignItems: 'center', flexWrap: 'wrap', mb: 1 }}>
        <Typography variant="body2">
          <LogSentence entry={l} />
        </Typography>
        <Chip
          size="small"
          variant="outlined"
          label={translate(`logs.action_names.${l.action}`, { _: l.action.replace(/_/g, ' ') })}
          title={translate('logs.fields.action')}
        />
      </Stack>
      {l.description && (
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          {l.description}
        </Typography>
      )}
      {keys.length === 0 ? (
        <Typography variant="body2" color="text.secondary">
          {translate('logs.no_fields')}
        </Typography>
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
                <TableCell sx={{ fontWeight: 600 }}>{fieldLabel(translate, k)}</TableCell>
                <TableCell sx={{ color: 'error.main', wordBreak: 'break-word' }}>
                  <Value field={k} value={before[k]} currency={currency} />
                </TableCell>
                <TableCell sx={{ color: 'success.main', wordBreak: 'break-word' }}>
                  <Value field={k} value={after[k]} currency={currency} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
      {l.user_agent && (
        <Typography variant="caption" color="text.secondary">
          {l.user_agent}
        </Typography>
      )}
    </Box>
  );
}

/** One value of the change: an amount reads left to right in an Arabic sentence too. */
function Value({ field, value, currency }: { field: string; value: unknown; currency: string }) {
  const translate = useTranslate();
  const text = fieldValue(translate, field, value, currency);
  return MONEY_FIELDS.has(field) ? <Ltr>{text}</Ltr> : <>{text}</>;
}

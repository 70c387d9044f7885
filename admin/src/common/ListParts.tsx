import { cloneElement, isValidElement, type ReactElement, type ReactNode } from 'react';
import { FilterButton, TopToolbar, useListContext, useTranslate } from 'react-admin';
import { Alert, AlertTitle, Box, Button, Typography } from '@mui/material';
import { serverMessage } from '../providers/errors';
import InboxIcon from '@mui/icons-material/InboxOutlined';
import { useIsPhone } from './useIsPhone';

/**
 * On a phone a list's filters wait behind a "Filter" button (react-admin's FilterButton) instead
 * of five inputs stacked above the data: `alwaysOn` is dropped there, and a filter opens when
 * picked from the button (or shows when it already has a value). The search box (`q`) stays: one
 * line, the filter used most, and one that has no name to be listed under in the button's menu.
 */
export function usePhoneFilters(filters: ReactElement[]): ReactElement[] {
  const phone = useIsPhone();
  if (!phone) return filters;
  return filters.map((f) => (isValidElement<{ alwaysOn?: boolean; source?: string }>(f) && f.props.source !== 'q' ? cloneElement(f, { alwaysOn: false }) : f));
}

/** A list's top bar: the Filter button on phones (when the list has filters) and the list's own actions. */
export function ListTopBar({ filters = true, children }: { filters?: boolean; children?: ReactNode }) {
  const phone = useIsPhone();
  if (!children && !(phone && filters)) return null;
  return (
    <TopToolbar sx={{ flexWrap: 'wrap', gap: 1, minHeight: { xs: 0, sm: 0 } }}>
      {phone && filters && <FilterButton />}
      {children}
    </TopToolbar>
  );
}

/**
 * What a list shows when it has nothing yet (react-admin's `empty`): a sentence saying what will
 * appear here and how, and where allowed the button that makes the first one.
 */
export function ListEmpty({ message, action }: { message: string; action?: ReactNode }) {
  const translate = useTranslate();
  return (
    <Box role="status" sx={{ p: { xs: 3, sm: 6 }, textAlign: 'center', width: '100%' }}>
      <InboxIcon sx={{ fontSize: 48, color: 'text.disabled', mb: 1 }} />
      <Typography color="text.secondary" sx={{ mb: action ? 2 : 0, maxWidth: 520, mx: 'auto' }}>
        {translate(message)}
      </Typography>
      {action}
    </Box>
  );
}

/**
 * Why a page or list could not load, in the server's words (react-admin's `error` slot, or a
 * page's own query), with a retry: never a spinner that turns forever.
 */
export function LoadError({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const translate = useTranslate();
  return (
    <Alert
      severity="error"
      role="alert"
      sx={{ my: 2 }}
      action={
        onRetry && (
          <Button color="inherit" size="small" onClick={onRetry}>
            {translate('common.retry')}
          </Button>
        )
      }
    >
      <AlertTitle>{translate('common.load_failed')}</AlertTitle>
      {serverMessage(error)}
    </Alert>
  );
}

/** A list's error state (react-admin's List `error` prop). */
export function ListError() {
  const { error, refetch } = useListContext();
  return <LoadError error={error} onRetry={() => refetch()} />;
}

import { useState, type ReactNode } from 'react';
import { Datagrid, FunctionField, SimpleList, useListContext, useTranslate } from 'react-admin';
import { Link as RouterLink, useNavigate } from 'react-router';
import { Button, Link, Stack, TextField } from '@mui/material';
import { Breadcrumbs } from '../resources/Breadcrumbs';
import { ResourceListPage } from '../common/ResourceListPage';
import { Ltr, useLtr } from '../common/Ltr';
import { useCompanyFormat } from '../common/useCompanyFormat';
import { DayStatusChip } from './DayParts';
import type { DailyCloseDay } from './types';

export const DAILY_CLOSE_PATH = '/reports/daily-close';

/**
 * /reports/daily-close: the company days, newest first (the API's order), each open or closed with
 * its sales, margin and differences still to handle; a day opens at /reports/daily-close/{date}.
 * A date field opens any day, even one the list has not reached.
 */
export default function DailyCloseListPage() {
  const translate = useTranslate();
  const fmt = useCompanyFormat();
  const ltr = useLtr();
  const navigate = useNavigate();
  const [day, setDay] = useState('');
  const money = (v: string | null) => (v === null ? '—' : `${v} ${fmt.currency}`);
  const open = (d: DailyCloseDay) => `${DAILY_CLOSE_PATH}/${d.date}`;
  const differences = (d: DailyCloseDay) =>
    d.differences_total === 0
      ? translate('daily_close.no_differences')
      : translate('daily_close.differences_line', { smart_count: d.differences_total, unhandled: d.differences_unhandled });
  return (
    <>
      <Breadcrumbs items={[{ label: 'menu.reports' }, { label: 'menu.daily_close' }]} />
      <ResourceListPage
        resource="daily-close"
        title={translate('menu.daily_close')}
        titleActions={
          <Stack
            component="form"
            direction="row"
            sx={{ gap: 1, alignItems: 'center' }}
            onSubmit={(e) => {
              e.preventDefault();
              navigate(`${DAILY_CLOSE_PATH}/${day || fmt.companyDay(0)}`);
            }}
          >
            <TextField
              type="date"
              size="small"
              label={translate('daily_close.open_day')}
              value={day || fmt.companyDay(0)}
              onChange={(e) => setDay(e.target.value)}
              slotProps={{ inputLabel: { shrink: true }, htmlInput: { max: fmt.companyDay(0) } }}
              sx={{ width: { xs: 170 } }}
            />
            <Button type="submit" variant="outlined">
              {translate('daily_close.go')}
            </Button>
          </Stack>
        }
        empty="daily_close.empty"
        perPage={31}
        sort={{ field: 'date', order: 'DESC' }}
        phone={
          <SimpleList<DailyCloseDay>
            primaryText={(d) => <Ltr>{d.date}</Ltr>}
            secondaryText={(d) =>
              `${
                d.margin === null
                  ? translate('daily_close.sales_line_no_margin', { smart_count: d.sales_count, amount: ltr(money(d.amount)) })
                  : translate('daily_close.sales_line', { smart_count: d.sales_count, amount: ltr(money(d.amount)), margin: ltr(money(d.margin)) })
              } · ${differences(d)}`
            }
            tertiaryText={(d) => <DayStatusChip status={d.status} />}
            linkType={false}
            rowClick={(_, __, d) => open(d as DailyCloseDay)}
          />
        }
        desktop={
          <DaysGrid rowClick={open}>
            {(showMargin) => [
              <FunctionField
                key="date"
                label="daily_close.fields.date"
                render={(d: DailyCloseDay) => (
                  // A real link too (keyboard, new tab); the row's click does the same.
                  <Link component={RouterLink} to={open(d)} onClick={(e) => e.stopPropagation()}>
                    <Ltr>{d.date}</Ltr>
                  </Link>
                )}
              />,
              <FunctionField key="status" label="daily_close.fields.status" render={(d: DailyCloseDay) => <DayStatusChip status={d.status} />} />,
              <FunctionField key="count" label="reports.count" textAlign="right" render={(d: DailyCloseDay) => d.sales_count} />,
              <FunctionField key="revenue" label="reports.revenue" textAlign="right" render={(d: DailyCloseDay) => <Ltr>{money(d.amount)}</Ltr>} />,
              showMargin && (
                <FunctionField key="margin" label="daily_close.fields.margin" textAlign="right" render={(d: DailyCloseDay) => <Ltr>{money(d.margin)}</Ltr>} />
              ),
              <FunctionField key="differences" label="daily_close.fields.differences" render={(d: DailyCloseDay) => differences(d)} />,
              <FunctionField
                key="updated"
                label="daily_close.fields.updated"
                render={(d: DailyCloseDay) => (d.closed_at ? fmt.dateTime(d.closed_at) : d.refreshed_at ? fmt.dateTime(d.refreshed_at) : '—')}
              />,
            ]}
          </DaysGrid>
        }
      />
    </>
  );
}

/**
 * The days' table; a row opens its day. The margin is null for a reader without 'view bundles
 * prices': its column is left out then (no column of dashes).
 */
function DaysGrid({ children, rowClick }: { children: (showMargin: boolean) => ReactNode; rowClick: (d: DailyCloseDay) => string }) {
  const { data } = useListContext<DailyCloseDay>();
  const showMargin = (data ?? []).some((d) => d.margin !== null);
  return (
    <Datagrid bulkActionButtons={false} rowClick={(_, __, d) => rowClick(d as DailyCloseDay)}>
      {children(showMargin)}
    </Datagrid>
  );
}

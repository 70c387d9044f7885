import { Breadcrumbs as MuiBreadcrumbs, Link, Typography } from '@mui/material';
import { Link as RouterLink } from 'react-router';
import { useTranslate } from 'react-admin';

export interface Crumb {
  label: string;
  /** Absent on the current page. */
  to?: string;
}

/** Where a nested screen sits (operator > category > bundles); labels are translation keys or names. */
export function Breadcrumbs({ items }: { items: Crumb[] }) {
  const translate = useTranslate();
  return (
    <MuiBreadcrumbs aria-label={translate('resources_common.breadcrumbs')} sx={{ mb: 1 }}>
      {items.map((c, i) =>
        c.to && i < items.length - 1 ? (
          <Link key={i} component={RouterLink} to={c.to} underline="hover" color="inherit">
            {translate(c.label, { _: c.label })}
          </Link>
        ) : (
          <Typography key={i} color="text.primary" aria-current="page">
            {translate(c.label, { _: c.label })}
          </Typography>
        ),
      )}
    </MuiBreadcrumbs>
  );
}

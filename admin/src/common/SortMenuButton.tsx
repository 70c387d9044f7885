import { useState } from 'react';
import { useListSortContext, useTranslate } from 'react-admin';
import { Button, ListItemIcon, ListItemText, Menu, MenuItem } from '@mui/material';
import SortIcon from '@mui/icons-material/Sort';
import ArrowDropDownIcon from '@mui/icons-material/ArrowDropDown';
import ArrowDownwardIcon from '@mui/icons-material/ArrowDownward';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';

type Order = 'ASC' | 'DESC';

export interface SortChoice {
  /** The API's sort field (the desktop column's `sortBy`). */
  source: string;
  /** The translation key of the column's header. */
  label: string;
  /** The order the first pick sorts by (the desktop column's `sortByOrder`); a second pick turns it around. */
  order?: Order;
}

/**
 * A phone's sort control (a phone's list has no column headers to click): "Sort" opens a menu of
 * the fields, as react-admin's SortButton, but the first pick of a field sorts by that column's own
 * order (dates newest first, like a click on the desktop header) and a pick of the current field turns
 * it around. The sort goes through the list's context, so it stays in the URL like the header's.
 */
export function SortMenuButton({ fields }: { fields: SortChoice[] }) {
  const translate = useTranslate();
  const { sort, setSort } = useListSortContext();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const current = fields.find((f) => f.source === sort.field);
  const inverse = (o: string): Order => (o === 'ASC' ? 'DESC' : 'ASC');
  const next = (f: SortChoice): Order => (f.source === sort.field ? inverse(sort.order) : (f.order ?? 'ASC'));
  const Arrow = (o: string) => (o === 'ASC' ? <ArrowUpwardIcon fontSize="small" /> : <ArrowDownwardIcon fontSize="small" />);
  return (
    <>
      <Button
        size="small"
        color="primary"
        aria-haspopup="menu"
        aria-expanded={anchor ? 'true' : undefined}
        startIcon={<SortIcon />}
        endIcon={current ? Arrow(sort.order) : <ArrowDropDownIcon />}
        onClick={(e) => setAnchor(e.currentTarget)}
      >
        {current ? `${translate('ra.action.sort')}: ${translate(current.label)}` : translate('ra.action.sort')}
      </Button>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)}>
        {fields.map((f) => (
          <MenuItem
            key={f.source}
            data-sort={f.source}
            selected={f === current}
            onClick={() => {
              setSort({ field: f.source, order: next(f) });
              setAnchor(null);
            }}
          >
            <ListItemIcon>{Arrow(next(f))}</ListItemIcon>
            <ListItemText>{`${translate(f.label)} ${translate(`ra.sort.${next(f)}`)}`}</ListItemText>
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}

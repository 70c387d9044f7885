import type { ReactElement, ReactNode } from 'react';
import { List, useTranslate, type ListProps } from 'react-admin';
import { Button, Stack } from '@mui/material';
import AddIcon from '@mui/icons-material/Add';
import { PageTitle } from './PageTitle';
import { ListEmpty, ListError, ListTopBar, usePhoneFilters } from './ListParts';
import { useIsPhone } from './useIsPhone';

/** The button that makes a new record: at the title, and again in the empty state. */
export interface CreateAction {
  /** Translation key (or text) of the button. */
  label: string;
  onClick: () => void;
}

export interface ResourceListPageProps extends Omit<ListProps, 'children' | 'empty' | 'actions' | 'title' | 'filters' | 'error'> {
  /** The page's heading (and the browser tab's title), already in the reader's words. */
  title: string;
  /** Shown when the user may create one; left out otherwise. */
  create?: CreateAction | false | null;
  /** Translation key of the sentence an empty list shows (what will appear here, and how); false: the list itself, with its filters, says it has no rows. */
  empty: string | ReactElement | false;
  /** The list's filters: on a phone they wait behind the Filter button. */
  filters?: ReactElement[];
  /** The list's own actions beside the Filter button (an export, a switch...). */
  actions?: ReactNode;
  /** What sits beside the heading other than the create button. */
  titleActions?: ReactNode;
  /** A phone's rows (a SimpleList) and a desktop's (a Datagrid). */
  phone: ReactElement;
  desktop: ReactElement;
  /** Drawn between the heading and the list (a help line, a warning, a chooser, tabs). */
  intro?: ReactNode;
  /** Drawn after the list (a record's form drawer, a dialog). */
  after?: ReactNode;
}

/**
 * Every console list page: the title with its create button, the list with its filters (behind
 * a button on phones), the empty state saying what will appear and offering the same button,
 * the load error with a retry, and SimpleList rows on a phone, a Datagrid on a desktop.
 */
export function ResourceListPage({ title, create, empty, filters, actions, titleActions, phone, desktop, intro, after, ...listProps }: ResourceListPageProps) {
  const translate = useTranslate();
  const isPhone = useIsPhone();
  const shownFilters = usePhoneFilters(filters ?? []);
  const createButton = create ? (
    <Button variant="contained" startIcon={<AddIcon />} onClick={create.onClick}>
      {translate(create.label)}
    </Button>
  ) : null;
  return (
    <>
      <PageTitle
        title={title}
        actions={
          titleActions && createButton ? (
            <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
              {titleActions}
              {createButton}
            </Stack>
          ) : (
            (titleActions ?? createButton)
          )
        }
      />
      {intro}
      <List
        perPage={25}
        {...listProps}
        title={title}
        filters={filters?.length ? shownFilters : undefined}
        actions={<ListTopBar filters={!!filters?.length}>{actions}</ListTopBar>}
        empty={typeof empty === 'string' ? <ListEmpty message={empty} action={createButton} /> : empty}
        error={<ListError />}
      >
        {isPhone ? phone : desktop}
      </List>
      {after}
    </>
  );
}

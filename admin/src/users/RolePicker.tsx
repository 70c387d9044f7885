import { useMemo, useState } from 'react';
import { Autocomplete, TextField } from '@mui/material';
import { useDataProvider, useGetList, useTranslate } from 'react-admin';
import { useQuery } from '@tanstack/react-query';
import type { ConsoleDataProvider } from '../providers/dataProvider';
import { DEALER_ROLE } from '@app/contracts/permissions';

interface RoleOption {
  id: number;
  name: string;
}

export const ROLE_SEARCH_MIN = 2;
export const ALL_ROLES_STALE_MS = 5 * 60 * 1000;
/** The admin role picker never offers the dealer role (docs/product.md section 5). */
export const pickableRoles = (roles: RoleOption[]): RoleOption[] => roles.filter((r) => r.name !== DEALER_ROLE);

/**
 * Role picker: all roles (cached 5 min) as options; typing more than one character searches
 * the server (GET /roles/search?q=).
 */
export function RolePicker({
  value,
  onChange,
  error,
  helperText,
}: {
  value: number | null;
  onChange: (id: number | null) => void;
  error?: boolean;
  helperText?: string;
}) {
  const translate = useTranslate();
  const dataProvider = useDataProvider<ConsoleDataProvider>();
  const [input, setInput] = useState('');
  const all = useGetList<RoleOption>(
    'roles',
    { pagination: { page: 1, perPage: 100 }, sort: { field: 'name', order: 'ASC' } },
    { staleTime: ALL_ROLES_STALE_MS },
  );
  const term = input.trim();
  const search = useQuery({
    queryKey: ['roles', 'search', term],
    queryFn: () => dataProvider.search('roles', { q: term }).then((r) => r.data as unknown as RoleOption[]),
    enabled: term.length >= ROLE_SEARCH_MIN,
  });
  const options = useMemo(() => pickableRoles((term.length >= ROLE_SEARCH_MIN ? search.data : all.data) ?? []), [term, search.data, all.data]);
  const selected = useMemo(() => (all.data ?? []).find((r) => r.id === value) ?? null, [all.data, value]);

  return (
    <Autocomplete
      options={options}
      value={selected}
      loading={all.isPending || search.isFetching}
      getOptionLabel={(o) => o.name}
      isOptionEqualToValue={(a, b) => a.id === b.id}
      filterOptions={(x) => x}
      onInputChange={(_, v, reason) => (reason === 'input' || reason === 'clear') && setInput(reason === 'input' ? v : '')}
      onChange={(_, v) => onChange(v ? v.id : null)}
      renderInput={(params) => <TextField {...params} label={translate('users.fields.role')} required error={error} helperText={helperText} />}
    />
  );
}

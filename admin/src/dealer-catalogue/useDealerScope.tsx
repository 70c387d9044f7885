import { useGetList, useGetOne, useTranslate } from 'react-admin';
import { Autocomplete, Box, TextField, Typography } from '@mui/material';
import { useSearchParams } from 'react-router';
import { useState } from 'react';
import { useSignedInUser } from '../auth/identity';

/**
 * Whose catalogue a screen shows: a dealer always its own; an admin the dealer named by the
 * `?dealer=` query parameter (kept on every link, so a reload or a shared URL shows the same).
 */
export function useDealerScope() {
  const user = useSignedInUser();
  const [params, setParams] = useSearchParams();
  const isDealer = user?.user_type === 'dealer';
  const dealerId = isDealer ? String(user!.id) : params.get('dealer');
  const suffix = !isDealer && dealerId ? `?dealer=${encodeURIComponent(dealerId)}` : '';
  return {
    isDealer,
    dealerId,
    /** Extra list filter and update data: the API needs dealer_id from admins (dealers are always themselves). */
    filter: isDealer || !dealerId ? {} : { dealer_id: dealerId },
    /** Appends ?dealer= to a console path. */
    link: (path: string) => `${path}${suffix}`,
    choose: (id: string | null) => setParams(id ? { dealer: id } : {}, { replace: false }),
  };
}

/** The admin's dealer chooser (search by name or code), shown above the dealer catalogue screens. */
export function DealerPicker({ scope }: { scope: ReturnType<typeof useDealerScope> }) {
  const translate = useTranslate();
  const [q, setQ] = useState('');
  // A dealer has no chooser: nothing is asked for it.
  const { data: options = [], isPending } = useGetList(
    'user-options',
    { filter: { user_type: 'dealer', q: q || undefined }, pagination: { page: 1, perPage: 20 }, sort: { field: 'name', order: 'ASC' } },
    { enabled: !scope.isDealer },
  );
  const { data: chosen } = useGetOne('user-options', { id: scope.dealerId! }, { enabled: !scope.isDealer && !!scope.dealerId });
  if (scope.isDealer) return null;
  return (
    <Box sx={{ mb: 2, maxWidth: 420 }}>
      <Autocomplete
        options={options}
        loading={isPending}
        value={chosen ?? null}
        onChange={(_e, v) => scope.choose(v ? String(v.id) : null)}
        onInputChange={(_e, v) => setQ(v)}
        isOptionEqualToValue={(a, b) => a.id === b.id}
        getOptionLabel={(o) => (o.dealer_code ? `${o.name} (${o.dealer_code})` : o.name)}
        filterOptions={(x) => x}
        renderInput={(p) => <TextField {...p} label={translate('dealer_catalogue.choose_dealer')} size="small" />}
      />
      {!scope.dealerId && (
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {translate('dealer_catalogue.choose_dealer_help')}
        </Typography>
      )}
    </Box>
  );
}

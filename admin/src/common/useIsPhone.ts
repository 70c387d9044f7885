import { useMediaQuery, type Theme } from '@mui/material';

/** Phones get react-admin's SimpleList instead of a table that scrolls sideways. */
export const useIsPhone = () => useMediaQuery<Theme>((theme) => theme.breakpoints.down('sm'));

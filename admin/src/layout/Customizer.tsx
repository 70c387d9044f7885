import { lazy, Suspense, useEffect, useState } from 'react';
import { IconButton, Tooltip } from '@mui/material';
import TuneIcon from '@mui/icons-material/Tune';
import { useTranslate } from 'react-admin';

// The panel (its toggle buttons, select and drawer) loads after the layout has shown, not with it.
const CustomizerPanel = lazy(() => import('./CustomizerPanel'));

/** The customizer of docs/product.md section 2: its button in the top bar opens the panel. */
export function Customizer() {
  const translate = useTranslate();
  const [open, setOpen] = useState(false);
  const [load, setLoad] = useState(false);
  useEffect(() => setLoad(true), []);

  return (
    <>
      <Tooltip title={translate('customizer.open')}>
        {/* In the top bar (beside the theme and language switchers), so it covers no content. */}
        <IconButton color="inherit" onClick={() => setOpen(true)} aria-label={translate('customizer.open')}>
          <TuneIcon />
        </IconButton>
      </Tooltip>
      {(load || open) && (
        <Suspense fallback={null}>
          <CustomizerPanel open={open} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}

import { useEffect, useState } from 'react';
import { Fab, Zoom } from '@mui/material';
import ArrowUpwardIcon from '@mui/icons-material/ArrowUpward';
import { useTranslate } from 'react-admin';

export const SCROLL_THRESHOLD = 50;

/** Appears after 50 px of scrolling (docs/product.md section 2). */
export function ScrollToTop() {
  const translate = useTranslate();
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const on = () => setShown(window.scrollY > SCROLL_THRESHOLD);
    on();
    window.addEventListener('scroll', on, { passive: true });
    return () => window.removeEventListener('scroll', on);
  }, []);
  return (
    <Zoom in={shown}>
      <Fab
        color="primary"
        size="small"
        aria-label={translate('layout.scroll_top')}
        onClick={() => window.scrollTo({ top: 0, behavior: 'smooth' })}
        sx={{ position: 'fixed', bottom: 24, insetInlineEnd: 24, zIndex: 1200 }}
      >
        <ArrowUpwardIcon />
      </Fab>
    </Zoom>
  );
}

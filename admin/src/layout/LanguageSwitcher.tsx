import { useState } from 'react';
import { IconButton, ListItemText, Menu, MenuItem, Tooltip } from '@mui/material';
import TranslateIcon from '@mui/icons-material/Translate';
import { useLocaleState, useTranslate } from 'react-admin';
import { LANGUAGES } from '../i18n/i18n';

/** Icon-only language switcher; its dropdown is at most 400 px high (docs/product.md section 2). */
export function LanguageSwitcher() {
  const translate = useTranslate();
  const [locale, setLocale] = useLocaleState();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  return (
    <>
      <Tooltip title={translate('topbar.language')}>
        <IconButton
          color="inherit"
          aria-label={translate('topbar.language')}
          aria-haspopup="menu"
          onClick={(e) => setAnchor(e.currentTarget)}
          data-testid="language-switcher"
        >
          <TranslateIcon />
        </IconButton>
      </Tooltip>
      <Menu anchorEl={anchor} open={!!anchor} onClose={() => setAnchor(null)} slotProps={{ paper: { sx: { maxHeight: 400 } } }}>
        {LANGUAGES.map((l) => (
          <MenuItem
            key={l.locale}
            selected={locale === l.locale}
            lang={l.locale === 'ae' ? 'ar' : l.locale}
            onClick={() => {
              setAnchor(null);
              setLocale(l.locale);
            }}
          >
            <ListItemText>{l.name}</ListItemText>
          </MenuItem>
        ))}
      </Menu>
    </>
  );
}

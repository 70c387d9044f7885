import { useEffect, useRef, useState } from 'react';
import { useLocation, useNavigate, useTranslate } from 'react-admin';
import { useSearchParams } from '../common/useSearchParams';
import { Box, IconButton, InputBase, Tooltip } from '@mui/material';
import SearchIcon from '@mui/icons-material/Search';

/**
 * Header search: Ctrl/Cmd+K focuses it; submitting goes to /search?q=<trimmed>; clearing the
 * box while on /search returns to /search. On small screens it hides behind a toggle.
 */
const IS_MAC = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

export function SearchBox({ compact }: { compact: boolean }) {
  const translate = useTranslate();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const onSearch = location.pathname === '/search';
  const [value, setValue] = useState(onSearch ? (params.get('q') ?? '') : '');
  const [shown, setShown] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setShown(true);
        setTimeout(() => input.current?.focus());
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // The phone's toggle opens the field ready to type in.
  useEffect(() => {
    if (compact && shown) input.current?.focus();
  }, [compact, shown]);

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const q = value.trim();
    navigate(q ? `/search?q=${encodeURIComponent(q)}` : '/search');
    // On a phone the field floats over the page: once asked, it gets out of the way of the results' heading.
    if (compact) setShown(false);
  };

  const visible = !compact || shown;
  return (
    <>
      {compact && (
        <Tooltip title={translate('topbar.search')}>
          <IconButton color="inherit" aria-label={translate('topbar.search')} aria-expanded={shown} onClick={() => setShown((s) => !s)}>
            <SearchIcon />
          </IconButton>
        </Tooltip>
      )}
      {visible && (
        <Box
          component="form"
          role="search"
          onSubmit={submit}
          sx={{
            display: 'flex',
            alignItems: 'center',
            gap: 1,
            px: 1.5,
            borderRadius: 2,
            ...(compact
              ? { position: 'absolute', top: '100%', insetInlineStart: 8, insetInlineEnd: 8, bgcolor: 'background.paper', boxShadow: 3, py: 0.5 }
              : { width: 320, bgcolor: 'action.hover' }),
          }}
        >
          <SearchIcon fontSize="small" aria-hidden />
          <InputBase
            inputRef={input}
            value={value}
            onChange={(e) => {
              setValue(e.target.value);
              if (e.target.value === '' && onSearch) navigate('/search');
            }}
            placeholder={translate('topbar.search_placeholder')}
            onKeyDown={(e) => {
              if (e.key === 'Escape' && compact) setShown(false);
            }}
            inputProps={{ 'aria-label': translate('topbar.search'), type: 'search' }}
            sx={{ flex: 1, color: 'text.primary' }}
          />
          <Box component="kbd" sx={{ fontSize: 11, color: 'text.secondary', display: compact ? 'none' : 'block' }}>
            {IS_MAC ? '⌘K' : 'Ctrl K'}
          </Box>
        </Box>
      )}
    </>
  );
}

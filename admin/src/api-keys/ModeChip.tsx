import { useTranslate } from 'react-admin';
import { Chip } from '@mui/material';
import ScienceIcon from '@mui/icons-material/ScienceOutlined';
import type { ApiKeyMode } from '@app/contracts';

/**
 * A key's, sale's, batch's or event's mode (docs/api-conventions.md, "Test mode"). Test is an
 * outlined warning chip with a flask, so the sandbox is never taken for live money; live is a
 * plain outlined chip, shown only where every row says its mode (`showLive`, the keys list).
 */
export function ModeChip({ mode, showLive = false }: { mode: ApiKeyMode; showLive?: boolean }) {
  const translate = useTranslate();
  if (mode === 'test')
    return (
      <Chip
        size="small"
        color="warning"
        variant="outlined"
        icon={<ScienceIcon />}
        label={translate('test_mode.test')}
        title={translate('test_mode.test_help')}
      />
    );
  return showLive ? <Chip size="small" variant="outlined" label={translate('test_mode.live')} /> : null;
}

/** The choices of a mode filter (the list's SelectInput). */
export const MODE_CHOICES = [
  { id: 'live', name: 'test_mode.live' },
  { id: 'test', name: 'test_mode.test' },
];

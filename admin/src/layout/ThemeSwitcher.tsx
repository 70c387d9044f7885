import { IconButton, Tooltip } from '@mui/material';
import LightModeIcon from '@mui/icons-material/LightModeOutlined';
import DarkModeIcon from '@mui/icons-material/DarkModeOutlined';
import SystemIcon from '@mui/icons-material/SettingsBrightnessOutlined';
import { useTranslate } from 'react-admin';
import { nextThemeMode, useThemeConfig } from '../theme/themeConfig';

/** Cycles light, dark, system, then light (docs/product.md section 2). */
export function ThemeSwitcher() {
  const translate = useTranslate();
  const { config, update } = useThemeConfig();
  const Icon = config.theme === 'light' ? LightModeIcon : config.theme === 'dark' ? DarkModeIcon : SystemIcon;
  const label = translate('topbar.theme', { mode: translate(`customizer.theme_${config.theme}`) });
  return (
    <Tooltip title={label}>
      <IconButton
        color="inherit"
        aria-label={label}
        data-testid="theme-switcher"
        data-mode={config.theme}
        onClick={() => update({ theme: nextThemeMode(config.theme) })}
      >
        <Icon />
      </IconButton>
    </Tooltip>
  );
}

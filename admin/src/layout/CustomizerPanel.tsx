import {
  Box,
  Button,
  Checkbox,
  Divider,
  Drawer,
  FormControl,
  FormControlLabel,
  IconButton,
  InputLabel,
  MenuItem,
  Select,
  Stack,
  ToggleButton,
  ToggleButtonGroup,
  Typography,
} from '@mui/material';
import CloseIcon from '@mui/icons-material/Close';
import { useTranslate } from 'react-admin';
import { ANIMATIONS, useThemeConfig, type ThemeConfig } from '../theme/themeConfig';

type Choice<K extends keyof ThemeConfig> = { key: K; title: string; values: readonly ThemeConfig[K][] };

const CHOICES: [Choice<'theme'>, Choice<'menu'>, Choice<'layout'>, Choice<'rtlClass'>, Choice<'navbar'>] = [
  { key: 'theme', title: 'customizer.color_scheme', values: ['light', 'dark', 'system'] },
  { key: 'menu', title: 'customizer.navigation', values: ['horizontal', 'vertical', 'collapsible-vertical'] },
  { key: 'layout', title: 'customizer.layout_style', values: ['boxed-layout', 'full'] },
  { key: 'rtlClass', title: 'customizer.direction', values: ['ltr', 'rtl'] },
  { key: 'navbar', title: 'customizer.navbar_type', values: ['navbar-sticky', 'navbar-floating', 'navbar-static'] },
];

/** The customizer panel of docs/product.md section 2 (Customizer.tsx opens it); every choice is kept (theme_config). */
export default function CustomizerPanel({ open, onClose }: { open: boolean; onClose: () => void }) {
  const translate = useTranslate();
  const { config, update, reset } = useThemeConfig();
  const label = (v: string) => translate(`customizer.values.${v.replace(/-/g, '_') || 'none'}`);

  return (
    <Drawer anchor="right" open={open} onClose={onClose} slotProps={{ paper: { sx: { width: 320, p: 2 } } }}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between' }}>
        <Typography variant="h6" component="h2">
          {translate('customizer.title')}
        </Typography>
        <IconButton onClick={onClose} aria-label={translate('common.close')}>
          <CloseIcon />
        </IconButton>
      </Stack>
      <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
        {translate('customizer.subtitle')}
      </Typography>
      <Stack spacing={2.5} divider={<Divider flexItem />}>
        {CHOICES.map((c) => (
          <Box key={c.key}>
            <Typography variant="subtitle2" gutterBottom id={`cz-${c.key}`}>
              {translate(c.title)}
            </Typography>
            <ToggleButtonGroup
              exclusive
              size="small"
              fullWidth
              aria-labelledby={`cz-${c.key}`}
              value={config[c.key]}
              onChange={(_, v) => v && update({ [c.key]: v } as Partial<ThemeConfig>)}
            >
              {c.values.map((v) => (
                <ToggleButton key={v} value={v} sx={{ textTransform: 'none' }}>
                  {label(v)}
                </ToggleButton>
              ))}
            </ToggleButtonGroup>
            {c.key === 'menu' && (
              <FormControlLabel
                sx={{ mt: 1 }}
                control={<Checkbox checked={config.semidark} onChange={(e) => update({ semidark: e.target.checked })} />}
                label={translate('customizer.semi_dark')}
              />
            )}
          </Box>
        ))}
        <FormControl size="small" fullWidth>
          <InputLabel id="cz-animation">{translate('customizer.animation')}</InputLabel>
          <Select
            labelId="cz-animation"
            label={translate('customizer.animation')}
            value={config.animation}
            onChange={(e) => update({ animation: e.target.value as ThemeConfig['animation'] })}
          >
            {ANIMATIONS.map((a) => (
              <MenuItem key={a || 'none'} value={a}>
                {label(a.replace('animate__', ''))}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        <Button variant="outlined" onClick={reset}>
          {translate('customizer.reset')}
        </Button>
      </Stack>
    </Drawer>
  );
}

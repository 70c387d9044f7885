import { useId, useState } from 'react';
import { TextInput, useTranslate } from 'react-admin';
import { useFormState, useWatch } from 'react-hook-form';
import { Box, Button, Collapse } from '@mui/material';
import TranslateIcon from '@mui/icons-material/Translate';
import ExpandMoreIcon from '@mui/icons-material/ExpandMore';
import { CONTENT_LANGUAGES, type ContentLanguage } from '@app/contracts';

/** Arabic first (the storefront's other audiences), then Somali, then English; Arabic is right to left. */
const LANGUAGES: { code: ContentLanguage; dir: 'rtl' | 'ltr'; htmlLang: string }[] = [
  { code: 'ae', dir: 'rtl', htmlLang: 'ar' },
  { code: 'so', dir: 'ltr', htmlLang: 'so' },
  { code: 'en', dir: 'ltr', htmlLang: 'en' },
];
if (LANGUAGES.length !== CONTENT_LANGUAGES.length) throw new Error('TranslationFields: a content language has no input');

/** The form paths of one field's translations: translations.ae.name, translations.so.name ... */
export const translationPaths = (source: string) => LANGUAGES.map((l) => `translations.${l.code}.${source}`);

const at = (obj: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);

/**
 * The translations of one typed text (docs/data-model.md, Content translations), under its input:
 * a button "Translations of Name" opens an input per language ("Name in Arabic", right to left;
 * "Name in Somali"; "Name in English"), bound to `translations.<lang>.<source>`. Empty means the
 * storefront shows the original. Open from the start when the record has a translation, and
 * opened by an error on one of them (the shared schema's, or the API's 422 on
 * `translations.ae.name`), so a message is never hidden.
 */
export function TranslationFields({ source, label, multiline = false }: { source: string; label: string; multiline?: boolean }) {
  const translate = useTranslate();
  const id = useId();
  const paths = translationPaths(source);
  const { errors } = useFormState();
  // The record arrives after the first render (EditBase): what it holds decides until the user chooses.
  const values = useWatch({ name: paths }) as unknown[];
  const [choice, setChoice] = useState<boolean | null>(null);
  const hasText = values.some((v) => typeof v === 'string' && v.trim() !== '');
  const hasError = paths.some((p) => at(errors, p) !== undefined);
  const shown = hasError || (choice ?? hasText);
  const field = translate(label, { _: label });
  return (
    <Box sx={{ width: '100%', mt: -0.5, mb: 1 }}>
      <Button
        size="small"
        startIcon={<TranslateIcon />}
        endIcon={<ExpandMoreIcon sx={{ transform: shown ? 'rotate(180deg)' : 'none', transition: 'transform 150ms' }} />}
        aria-expanded={shown}
        aria-controls={id}
        onClick={() => setChoice(!shown)}
      >
        {translate('content_translations.toggle', { field })}
      </Button>
      <Collapse in={shown} id={id}>
        <Box sx={{ pt: 1, pl: { sm: 2 } }}>
          {LANGUAGES.map((l) => (
            <TextInput
              key={l.code}
              source={`translations.${l.code}.${source}`}
              label={translate('content_translations.field_in', { field, language: translate(`content_translations.languages.${l.code}`) })}
              helperText={false}
              fullWidth
              multiline={multiline}
              minRows={multiline ? 2 : undefined}
              slotProps={{ htmlInput: { dir: l.dir, lang: l.htmlLang } }}
            />
          ))}
        </Box>
      </Collapse>
    </Box>
  );
}

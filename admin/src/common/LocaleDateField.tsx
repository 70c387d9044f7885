import { DateField, useLocaleState, type DateFieldProps } from 'react-admin';

/** Dates in the console's language ('ae' formats as Arabic, 'so' as Somali). */
export function LocaleDateField(props: DateFieldProps) {
  const [locale] = useLocaleState();
  return <DateField {...props} locales={locale === 'ae' ? 'ar' : locale} />;
}

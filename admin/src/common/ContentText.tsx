import { FunctionField, useLocaleState } from 'react-admin';
import { translatedText, type Translations } from '@app/contracts';

type Translated = { translations?: Translations | null } | null | undefined;

/**
 * A text an admin or a dealer typed (an operator's, category's or bundle's name ...) in the reader's
 * language when translated (the record's `translations`), else as typed (docs/data-model.md,
 * "Content translations"). Forms keep the text as typed; lists, titles and breadcrumbs read this.
 */
export function useContentText() {
  const [locale] = useLocaleState();
  return <T extends string | null | undefined>(record: Translated, field: string, original: T): T | string =>
    translatedText(record?.translations ?? null, locale, field, original ?? null) ?? original;
}

/**
 * A list column of such a text, isolated in its own direction: "1 GB Daily" stays as written in an
 * Arabic row, and an Arabic name in an English one. Sorts by the text as typed.
 */
export function ContentTextField({ source, label, sortable }: { source: string; label?: string; sortable?: boolean }) {
  const text = useContentText();
  return (
    <FunctionField
      source={source}
      label={label}
      sortable={sortable}
      render={(r: Record<string, unknown>) => {
        const shown = text(r as Translated, source, (r[source] as string | null | undefined) ?? null);
        return shown ? <bdi>{shown}</bdi> : '—';
      }}
    />
  );
}

/**
 * What a sale sold, "Hormuud · Daily · 500 MB Daily", each name isolated: in an Arabic row a name
 * that starts with a number ("500 MB Daily") would otherwise read "MB Daily 500". A sale keeps the
 * names as typed when it was made (docs/data-model.md, "Content translations").
 */
export function SoldItem({ names }: { names: readonly (string | null | undefined)[] }) {
  const shown = names.filter((n): n is string => !!n);
  return (
    <>
      {shown.map((n, i) => (
        <span key={i}>
          {i > 0 && ' · '}
          <bdi>{n}</bdi>
        </span>
      ))}
    </>
  );
}

import type { ReactNode } from 'react';
import { useTheme } from '@mui/material';

/**
 * Keeps a value left-to-right and isolated from the text around it: phone numbers, amounts
 * ('0.30 USD', not 'USD 0.30'), references, codes and IP addresses ('::1', not '1::') inside
 * right-to-left (Arabic) text. Harmless in left-to-right text.
 */
export function Ltr({ children }: { children: ReactNode }) {
  if (children === null || children === undefined || children === '') return null;
  return <bdi dir="ltr">{children}</bdi>;
}

/**
 * The same for a value inside a translated sentence (a plain string, no element): wrapped in the
 * invisible Unicode isolates LRI … PDI.
 */
export function ltr(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  return `\u2066${value}\u2069`;
}

/** `ltr` while the console is right-to-left; the value as it is otherwise (nothing to isolate from). */
export function useLtr(): (value: string | number | null | undefined) => string {
  const rtl = useTheme().direction === 'rtl';
  return (value) => (rtl ? ltr(value) : value === null || value === undefined ? '' : String(value));
}

/**
 * A value whose direction is its own (a name that may be English or Arabic, the server's English
 * explanation) inside a translated sentence: wrapped in the Unicode isolates FSI … PDI, so it
 * keeps its own order ("1 GB data, 1 day", not "GB data, 1 day 1") in right-to-left text.
 */
export function isolate(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '';
  return `\u2068${value}\u2069`;
}

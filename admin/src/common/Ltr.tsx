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

import { vi } from 'vitest';

/** A phone's width for component tests: MUI's useMediaQuery asks matchMedia, and every query matches. */
export function stubPhoneWidth(): void {
  vi.stubGlobal(
    'matchMedia',
    (query: string) =>
      ({
        matches: true,
        media: query,
        onchange: null,
        addListener: () => undefined,
        removeListener: () => undefined,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
        dispatchEvent: () => false,
      }) as MediaQueryList,
  );
}

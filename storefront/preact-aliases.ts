/**
 * React's API on Preact (preact/compat: about 8 KB gzip in the bundle, React and react-dom were 68): the code is
 * written against React's types and hooks, the page ships Preact. The component tests run on the same
 * aliases (vitest.config.ts, project storefront), so they test what ships.
 */
export const PREACT_ALIASES = [
  { find: /^react$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
];

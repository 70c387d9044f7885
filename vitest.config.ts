import { defineConfig } from 'vitest/config';
import { PREACT_ALIASES } from './storefront/preact-aliases.ts';

// One config, three projects: the API suite (real SQLite, and MySQL/MariaDB when
// TEST_DATABASES includes mysql), the console's component tests, and the browser end-to-end
// suite. Tests run in Africa/Mogadishu (UTC+3) so that date bugs show.
process.env.TZ = 'Africa/Mogadishu';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'api',
          environment: 'node',
          include: ['api/src/**/*.test.ts', 'tests/api/**/*.test.ts', 'contracts/src/**/*.test.ts'],
          setupFiles: ['tests/api/setup-env.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          // Each file gets its own database (see tests/api/harness.ts); two workers fit 2 cores.
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'admin',
          environment: 'jsdom',
          include: ['admin/src/**/*.test.{ts,tsx}'],
          testTimeout: 20_000,
        },
      },
      {
        // The storefront ships Preact behind React's API (storefront/preact-aliases.ts): its tests run on
        // the same aliases, @testing-library/react included (its ES module build, inlined, so that its
        // imports of react and react-dom are aliased too; storefront/src/runtime.test.ts checks).
        resolve: {
          alias: [...PREACT_ALIASES, { find: /^@testing-library\/react$/, replacement: '@testing-library/react/dist/@testing-library/react.esm.js' }],
        },
        test: {
          name: 'storefront',
          environment: 'jsdom',
          include: ['storefront/src/**/*.test.{ts,tsx}'],
          testTimeout: 20_000,
          server: { deps: { inline: ['@testing-library/react'] } },
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['tests/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});

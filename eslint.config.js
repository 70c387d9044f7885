// Lint rules for every workspace: the recommended JavaScript and TypeScript sets, React's hooks
// rules in the two browser apps, and nothing about layout (Prettier owns that: .prettierrc.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import prettier from 'eslint-config-prettier';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/dev-dist/**', 'data/**', 'test-results/**', 'coverage/**', 'tests/bench/lighthouse/node_modules/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused names are mistakes, except the ones a signature or a destructuring must name.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Database rows and vendor answers are typed where they are read; `any` is allowed at those edges only with a reason.
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    files: ['admin/**/*.{ts,tsx}', 'storefront/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  prettier,
);

import { describe, expect, it } from 'vitest';
import * as React from 'react';
import * as Preact from 'preact/compat';
import { cleanup, render } from '@testing-library/react';

describe('the runtime under test', () => {
  it('is the one that ships: Preact behind React’s API (storefront/preact-aliases.ts)', () => {
    expect(React.useState).toBe(Preact.useState);
    expect(React.createElement).toBe(Preact.createElement);
  });

  it('is the one Testing Library renders with (no React root in the page)', () => {
    const { container } = render(React.createElement('p', null, 'Preact'));
    expect(container.textContent).toBe('Preact');
    expect(Object.keys(container).filter((k) => k.startsWith('__react'))).toEqual([]);
    cleanup();
  });
});

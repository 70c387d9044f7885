import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen } from '@testing-library/react';
import { createTheme, ThemeProvider } from '@mui/material';
import { Ltr, ltr, useLtr } from './Ltr';

function Sentence() {
  const iso = useLtr();
  return <p data-testid="s">{`الرصيد ${iso('0.30 USD')}`}</p>;
}

describe('left-to-right values in right-to-left text', () => {
  afterEach(cleanup);

  it('isolates an IP, an amount or a phone number as a left-to-right run', () => {
    render(
      <p>
        عنوان <Ltr>::1</Ltr>
        <Ltr>{null}</Ltr>
      </p>,
    );
    const bdi = screen.getByText('::1');
    expect(bdi.tagName).toBe('BDI');
    expect(bdi.getAttribute('dir')).toBe('ltr');
    expect(document.querySelectorAll('bdi')).toHaveLength(1);
    expect(ltr('0.30 USD')).toBe('\u20660.30 USD\u2069');
    expect(ltr(null)).toBe('');
  });

  it('wraps values in sentences only when the console is right-to-left', () => {
    render(
      <ThemeProvider theme={createTheme({ direction: 'rtl' })}>
        <Sentence />
      </ThemeProvider>,
    );
    expect(screen.getByTestId('s').textContent).toBe('الرصيد \u20660.30 USD\u2069');
    cleanup();
    render(
      <ThemeProvider theme={createTheme({ direction: 'ltr' })}>
        <Sentence />
      </ThemeProvider>,
    );
    expect(screen.getByTestId('s').textContent).toBe('الرصيد 0.30 USD');
  });
});

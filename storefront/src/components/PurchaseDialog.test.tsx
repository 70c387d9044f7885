import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import i18next from 'i18next';
import en from '../../../locales/en/storefront.json';
import { PurchaseDialog } from './PurchaseDialog';

/** The number is checked against the operator's prefixes as the customer types, in local and +252 forms. */
const provider = { id: 1, h_id: 'p', name: 'Hormuud', code: 'HORMUUD', logo: null, phone_prefixes: ['61', '77'], categories: [] };
const bundle = { id: 9, h_id: 'b', name: '1 GB Daily', data_volume_mb: 1024, validity_days: 1, price: '0.50' };
const methods = [{ id: 3, h_id: 'm', name: 'EVC Plus', type: 'evc_plus', account_number: '615000000', instructions: 'Dial *712#', logo: null }];

async function setup(online = true) {
  await i18next.init({ lng: 'en', ns: ['storefront'], defaultNS: 'storefront', resources: { en: { storefront: en } }, interpolation: { escapeValue: false } });
  render(<PurchaseDialog code="DEMO" provider={provider} bundle={bundle} currency="USD" methods={methods} online={online} onClose={() => undefined} onBought={() => undefined} />);
}
afterEach(cleanup);

describe('the purchase dialog', () => {
  it('checks the number against the operator while typing', async () => {
    await setup();
    const input = screen.getByLabelText('Number to top up');
    fireEvent.change(input, { target: { value: '062 512 3456' } });
    expect(screen.getByText('This is not a Hormuud number: it should start with 61, 77')).toBeTruthy();
    fireEvent.change(input, { target: { value: '+252 61 512' } });
    expect(screen.queryByText(/is not a Hormuud number/)).toBeNull();
    fireEvent.change(input, { target: { value: '+252 61 512 3456' } });
    expect(input.getAttribute('aria-invalid')).toBe('false');
    expect(screen.getByText('Dial *712#')).toBeTruthy();
  });

  it('says buying needs a connection when offline', async () => {
    await setup(false);
    expect(screen.getAllByText('Buying needs an internet connection.').length).toBeGreaterThan(0);
    expect((screen.getByRole('button', { name: 'Pay $0.50' }) as HTMLButtonElement).disabled).toBe(true);
  });
});

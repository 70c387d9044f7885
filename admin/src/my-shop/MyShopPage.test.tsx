import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import MyShopPage from './MyShopPage';
import { ok, renderScreen } from '../test/renderScreen';
import { serveRoutes } from '../test/fetchMock';
import { clearSession } from '../providers/session';
import { shopLink } from './shopLink';

const shop = {
  dealer_code: 'HODAN',
  url: null,
  status: 'active',
  company_name: 'Hodan Data',
  brand_color: '#1E88E5',
  description: 'Bundles for every network',
  contact_email: null,
  contact_phone: '+252 61 5123456',
  website: null,
  logo: null,
};

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

const open = (lng = 'en') => renderScreen(<MyShopPage />, { path: '/my-shop', url: '/my-shop', permissions: ['view own wallet'], userType: 'dealer', lng });

describe('shopLink', () => {
  it("is APP_URL's address when the API gives one, else /dealer/{CODE} on the console's origin", () => {
    expect(shopLink({ dealer_code: 'HODAN', url: 'https://shop.example.so/dealer/HODAN' }, 'http://x')).toBe('https://shop.example.so/dealer/HODAN');
    expect(shopLink({ dealer_code: 'HO DAN', url: null }, 'https://office.example.so/')).toBe('https://office.example.so/dealer/HO%20DAN');
    expect(shopLink({ dealer_code: null, url: null }, 'https://office.example.so')).toBeNull();
  });
});

describe('My shop', () => {
  it('shows the link with Copy and Open, and its QR code', async () => {
    serveRoutes({ 'GET /api/v1/my-shop': () => ok(shop) });
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await open();
    const link = `${window.location.origin}/dealer/HODAN`;
    expect((await screen.findByTestId('shop-link', {}, { timeout: 5000 })).textContent).toBe(link);
    expect(screen.getByRole('link', { name: 'Open shop' }).getAttribute('href')).toBe(link);
    fireEvent.click(screen.getByRole('button', { name: 'Copy link' }));
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(link));
    expect(await screen.findByText('Link copied')).toBeTruthy();
    // The QR code is drawn (an SVG of the link) and can be downloaded.
    await waitFor(() => expect(screen.getByTestId('shop-qr').querySelector('svg')).not.toBeNull());
    expect(screen.getByRole('img', { name: `QR code of ${link}` })).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Download QR code (PNG)' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('a dealer without a code is told so, with no link', async () => {
    serveRoutes({ 'GET /api/v1/my-shop': () => ok({ ...shop, dealer_code: null }) });
    await open();
    expect(await screen.findByText('Your shop has no dealer code yet. Ask an admin to give you one.', {}, { timeout: 5000 })).toBeTruthy();
    expect(screen.queryByTestId('shop-link')).toBeNull();
  });

  it('saves the shop face and shows the server’s message', async () => {
    const calls = serveRoutes({
      'GET /api/v1/my-shop': () => ok(shop),
      'PATCH /api/v1/my-shop': () =>
        ok({ ...shop, company_name: 'Hodan Bundles', brand_color: '#00AA55' }, 'Your shop is saved. Customers see it at their next visit.'),
    });
    await open();
    const name = (await screen.findByLabelText('Shop name', {}, { timeout: 5000 })) as HTMLInputElement;
    expect(name.value).toBe('Hodan Data');
    fireEvent.change(name, { target: { value: 'Hodan Bundles' } });
    fireEvent.change(screen.getByLabelText('Shop colour'), { target: { value: '#00AA55' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Your shop is saved. Customers see it at their next visit.')).toBeTruthy();
    const sent = calls.find((c) => c.method === 'PATCH');
    expect(sent?.body).toMatchObject({
      company_name: 'Hodan Bundles',
      brand_color: '#00AA55',
      description: 'Bundles for every network',
      contact_phone: '+252 61 5123456',
    });
    // The picker follows the typed colour.
    expect((screen.getByLabelText('Pick the shop colour') as HTMLInputElement).value).toBe('#00aa55');
  });

  it('a colour that is not #RRGGBB is marked on its field and nothing is sent; the server’s 422 lands on its field', async () => {
    const calls = serveRoutes({
      'GET /api/v1/my-shop': () => ok(shop),
      'PATCH /api/v1/my-shop': () => ({
        status: 422,
        body: {
          success: false,
          code: 'validation.failed',
          message: 'Validation failed. Please check your inputs.',
          errors: { contact_email: ['Enter a valid email address'] },
        },
      }),
    });
    await open();
    fireEvent.change(await screen.findByLabelText('Shop colour', {}, { timeout: 5000 }), { target: { value: 'blue' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(screen.getByLabelText('Shop colour').getAttribute('aria-invalid')).toBe('true'));
    expect(await screen.findByText('Brand colour must be a hex colour such as #000000')).toBeTruthy();
    expect(calls.some((c) => c.method === 'PATCH')).toBe(false);

    fireEvent.change(screen.getByLabelText('Shop colour'), { target: { value: '#123456' } });
    fireEvent.change(screen.getByLabelText('Contact email'), { target: { value: 'nope' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Enter a valid email address')).toBeTruthy();
    expect(screen.getByLabelText('Contact email').getAttribute('aria-invalid')).toBe('true');
  });

  it('reads in Arabic', async () => {
    serveRoutes({ 'GET /api/v1/my-shop': () => ok(shop) });
    await open('ae');
    expect(await screen.findByRole('button', { name: 'نسخ الرابط' }, { timeout: 5000 })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'فتح المتجر' })).toBeTruthy();
    expect(screen.getByLabelText('اسم المتجر')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'متجري' })).toBeTruthy();
  });
});

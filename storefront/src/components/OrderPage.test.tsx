import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { Provider } from '../api';
import { saveOrder } from '../offline-cache';
import { SLOW_GIVE_UP_MS } from '../outcome';
import { mockApi, ok, outcomeLines, recharge, REF, useLanguage, word } from '../test-helpers';
import OrderPage from './OrderPage';

const daily = { id: 9, h_id: 'b', name: '1 GB Daily', data_volume_mb: 1024, validity_days: 1, price: '0.50' };
const providers: Provider[] = [
  {
    id: 1,
    h_id: 'p',
    name: 'Hormuud',
    code: 'HORMUUD',
    logo: null,
    phone_prefixes: ['61'],
    categories: [{ id: 2, h_id: 'c', name: 'Daily', description: null, bundles: [daily] }],
  },
];

function show({ reference = REF, online = true, onBuy = vi.fn() } = {}) {
  render(<OrderPage code="DEMO" reference={reference} shop="Demo Dealer" providers={providers} online={online} onBuy={onBuy} />);
  return onBuy;
}

const flush = () =>
  act(async () => {
    for (let i = 0; i < 30; i++) await Promise.resolve();
  });
async function advance(ms: number, step = 500) {
  for (let done = 0; done < ms; done += step) await act(() => vi.advanceTimersByTimeAsync(Math.min(step, ms - done)));
}
/** The order's facts as label -> value. */
const facts = () => {
  const dts = [...document.querySelectorAll('.facts dt')];
  return Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling!.textContent]));
};

beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the order page', () => {
  it('shows the bundle, the hidden number, the amount, the date, the status and the words; Buy again and back to the shop', async () => {
    await useLanguage('en');
    const calls = mockApi({ get: [ok(recharge({ outcome: 'delivered', money: 'charged', status: 'completed' }))] });
    const onBuy = show();
    await flush();
    expect(calls.map((c) => c.path)).toEqual([`/recharge/${REF}`]);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(`Order ${REF}`);
    expect(document.title).toBe(`Order ${REF} – Demo Dealer`);
    expect(facts()).toEqual({
      Bundle: 'Hormuud · 1 GB Daily',
      Number: '61****456',
      Amount: '$0.50',
      Date: expect.stringMatching(/Nov 23, 2026/),
      Status: 'Delivered',
    });
    expect(outcomeLines()).toEqual(['Done! Your bundle is active', '1 GB Daily was sent to 61****456.', 'Amount charged: $0.50.']);
    fireEvent.click(screen.getByRole('button', { name: 'Buy again' }));
    expect(onBuy).toHaveBeenCalledWith(providers[0], daily);
    expect(screen.getByRole('link', { name: 'Back to the shop' }).getAttribute('href')).toBe('/dealer/DEMO');
  });

  it('in Arabic: the words and chip translated, the reference and number left to right', async () => {
    await useLanguage('ae');
    mockApi({ get: [ok(recharge({ outcome: 'not_delivered', money: 'returned', status: 'refunded' }))] });
    show();
    await flush();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(`الطلب ${REF}`);
    expect(outcomeLines()).toEqual(['تعذّر تسليم الباقة', 'أُعيد إليك المبلغ الذي دفعته.']);
    expect(facts()['الحالة']).toBe('لم تُسلَّم');
    const isolated = [...document.querySelectorAll('bdi[dir="ltr"]')].map((b) => b.textContent);
    expect(isolated).toEqual(expect.arrayContaining([REF, '61****456', '$0.50']));
  });

  it('says clearly when the shop has no such order (the API answers 404)', async () => {
    await useLanguage('en');
    mockApi({ get: [{ status: 404, message: 'This purchase was not found in this shop.' }] });
    show({ reference: 'RC0000000009' });
    await flush();
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('This order was not found in this shop');
    expect(screen.getByRole('link', { name: 'Back to the shop' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Buy again' })).toBeNull();
  });

  it('does not ask the API about something that is no reference', async () => {
    await useLanguage('en');
    const calls = mockApi({});
    show({ reference: '12' });
    await flush();
    expect(calls).toEqual([]);
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('This order was not found in this shop');
  });

  it('refreshes itself while the order is open, until it is final, and offers Buy again only then', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await useLanguage('en');
    const calls = mockApi({
      get: [
        ok(recharge({ outcome: 'delivering', money: 'reserved', status: 'processing' })),
        ok(recharge({ outcome: 'delivering', money: 'reserved', status: 'processing' })),
        ok(recharge({ outcome: 'declined', money: 'nothing_taken', status: 'failed', can_retry: true })),
      ],
    });
    show();
    await flush();
    expect(facts().Status).toBe('Sending');
    expect(outcomeLines()).toContain('This page updates by itself.');
    expect(screen.queryByRole('button', { name: 'Buy again' })).toBeNull();
    await advance(2000);
    expect(calls).toHaveLength(2);
    await advance(2800);
    expect(calls).toHaveLength(3);
    expect(facts().Status).toBe('Not approved');
    expect(outcomeLines()).toEqual(['The payment was not approved', 'Check your balance and try again.', 'Nothing was taken from your account.']);
    expect(screen.getByRole('button', { name: 'Buy again' })).toBeTruthy();
    await advance(60_000, 5000);
    expect(calls).toHaveLength(3);
  });

  it('after minutes of delay stops asking and says to check back later, with a button to check again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await useLanguage('en');
    const calls = mockApi({ get: [ok(recharge({ outcome: 'delayed', money: 'unknown', status: 'needs_review' }))] });
    show();
    await flush();
    await advance(SLOW_GIVE_UP_MS + 15_000);
    expect(screen.getByText(/This is taking longer than usual. Check back later./)).toBeTruthy();
    const asked = calls.length;
    await advance(60_000, 5000);
    expect(calls.length).toBe(asked);
    fireEvent.click(screen.getByRole('button', { name: 'Check again' }));
    await advance(2000);
    expect(calls.length).toBe(asked + 1);
  });

  it('offline: says checking needs a connection, and shows the last known state kept on this phone', async () => {
    await useLanguage('en');
    const calls = mockApi({});
    saveOrder('DEMO', recharge({ outcome: 'delivering', money: 'reserved', status: 'processing' }));
    show({ online: false });
    await flush();
    expect(calls).toEqual([]);
    expect(document.querySelector('.note')!.textContent).toMatch(/^Checking this order needs an internet connection\. Showing what was known at /);
    expect(outcomeLines()[0]).toBe('Payment approved: sending your bundle');
    expect(outcomeLines()).not.toContain('This page updates by itself.');
    cleanup();
    localStorage.clear();
    show({ online: false });
    await flush();
    expect(document.querySelector('.note')!.textContent).toBe('Checking this order needs an internet connection.');
    expect(document.querySelector('.facts')).toBeNull();
  });
});

describe("the order page in the customer's words (issue 28 items 9 and 13)", () => {
  // The words of each language in turn (a plain function, not a component's hook).
  const language = useLanguage;
  const arabicDaily = { ...daily, name: 'باقة 1 جيجابايت' };
  const arabic: Provider[] = [{ ...providers[0], name: 'هرمود', categories: [{ ...providers[0].categories[0], bundles: [arabicDaily] }] }];

  it('in Arabic: the bundle in Arabic, Buy again found by the bundle (not its English name), the number left to right', async () => {
    await useLanguage('ae');
    const calls = mockApi({
      get: [
        ok(recharge({ outcome: 'delivered', money: 'charged', status: 'completed', bundle_name: 'باقة 1 جيجابايت', provider_name: 'هرمود', bundle_id: 9 })),
      ],
    });
    const onBuy = vi.fn();
    render(<OrderPage code="DEMO" reference={REF} shop="Demo Dealer" providers={arabic} online onBuy={onBuy} />);
    await flush();
    expect(calls[0].path).toBe(`/recharge/${REF}`);
    expect(facts()['الباقة']).toBe('هرمود · باقة 1 جيجابايت');
    const number = [...document.querySelectorAll('.facts dd bdi')].find((b) => b.textContent === '61****456')!;
    expect(number.getAttribute('dir')).toBe('ltr');
    fireEvent.click(screen.getByRole('button', { name: 'اشترِ مرة أخرى' }));
    expect(onBuy).toHaveBeenCalledWith(arabic[0], arabicDaily);
  });

  it('writes Somali dates with Somali month names ("23 Nofeembar 2026, 12:30"), never "2026 M11 23"', async () => {
    await useLanguage('so');
    mockApi({ get: [ok(recharge({ outcome: 'delivered', money: 'charged', status: 'completed' }))] });
    show();
    await flush();
    expect(facts()['Taariikh']).toBe('23 Nofeembar 2026, 12:30');
  });

  it("shares the receipt on WhatsApp: reference, bundle, number, amount, status and the order page, in the reader's language", async () => {
    for (const [lng, text] of [
      ['en', `Order ${REF} at Demo Dealer: Hormuud · 1 GB Daily for 61****456, $0.50. Status: Delivered. http://localhost:3000/dealer/DEMO/order/${REF}`],
      [
        'so',
        `Dalab ${REF} ee Demo Dealer: Hormuud · 1 GB Daily loogu talagalay 61****456, $0.50. Xaalad: Waa la gaarsiiyay. http://localhost:3000/dealer/DEMO/order/${REF}`,
      ],
    ] as const) {
      await language(lng);
      mockApi({ get: [ok(recharge({ outcome: 'delivered', money: 'charged', status: 'completed' }))] });
      show();
      await flush();
      const link = screen.getByRole('link', { name: word(lng, 'order.share') });
      const href = link.getAttribute('href')!;
      expect(href.startsWith('https://wa.me/?text=')).toBe(true);
      expect(decodeURIComponent(href.slice('https://wa.me/?text='.length)).replace(location.origin, 'http://localhost:3000')).toBe(text);
      expect(link.getAttribute('target')).toBe('_blank');
      expect(link.getAttribute('rel')).toContain('noopener');
      cleanup();
    }
    // Arabic: the Latin values isolated, so the sentence keeps its order in a right-to-left chat.
    await useLanguage('ae');
    mockApi({ get: [ok(recharge({ outcome: 'delivered', money: 'charged', status: 'completed' }))] });
    show();
    await flush();
    const text = decodeURIComponent(screen.getByRole('link', { name: 'شارك عبر واتساب' }).getAttribute('href')!.split('?text=')[1]);
    expect(text).toContain(`\u2068${REF}\u2069`);
    expect(text).toContain('\u2068Hormuud · 1 GB Daily\u2069');
    expect(text).toContain('\u206861****456\u2069');
    expect(text).toMatch(/^الطلب /);
  });
});

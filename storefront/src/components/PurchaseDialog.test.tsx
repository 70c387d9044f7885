import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { Money, Outcome, Recharge } from '../api';
import { SLOW_GIVE_UP_MS } from '../outcome';
import { mockApi, ok, outcomeLines, recharge, REF, useLanguage, word } from '../test-helpers';
import { PurchaseDialog } from './PurchaseDialog';

/** The number is checked against the operator's prefixes as the customer types, in local and +252 forms. */
const provider = { id: 1, h_id: 'p', name: 'Hormuud', code: 'HORMUUD', logo: null, phone_prefixes: ['61', '77'], categories: [] };
const bundle = { id: 9, h_id: 'b', name: '1 GB Daily', data_volume_mb: 1024, validity_days: 1, price: '0.50' };
const evc = {
  id: 3,
  h_id: 'm',
  name: 'EVC Plus',
  type: 'evc_plus',
  gateway: 'waafipay',
  prompts_payer: true,
  account_number: '615000000',
  instructions: 'Dial *712*615000000*amount# and send the amount shown.',
  logo: null,
};
const bank = {
  id: 4,
  h_id: 'k',
  name: 'Bank',
  type: 'bank',
  gateway: 'manual',
  prompts_payer: false,
  account_number: 'SO12 3456',
  instructions: 'Transfer to account SO12 3456, then send us the receipt.',
  logo: null,
};

function open({ online = true, methods = [evc] }: { online?: boolean; methods?: (typeof evc)[] } = {}) {
  return render(
    <PurchaseDialog
      code="DEMO"
      provider={provider}
      bundle={bundle}
      currency="USD"
      methods={methods}
      online={online}
      onClose={() => undefined}
      onBought={() => undefined}
    />,
  );
}

/** Lets the purchase's promises (session, POST, answers) settle. */
const flush = () =>
  act(async () => {
    for (let i = 0; i < 30; i++) await Promise.resolve();
  });

/**
 * Fills the form (top up 061 5123456, paid from 061 7000001) and pays. Typing is an `input` event, as
 * in a browser: the shipped runtime (Preact's React layer) listens to it for onChange.
 */
async function pay() {
  fireEvent.input(document.getElementById('phone')!, { target: { value: '0615123456' } });
  fireEvent.input(document.getElementById('payer')!, { target: { value: '0617000001' } });
  fireEvent.submit(document.querySelector('form')!);
  await flush();
}

/** Time passes in small steps, each in its own act(), so React renders between the answers. */
async function advance(ms: number, step = 500) {
  for (let done = 0; done < ms; done += step) await act(() => vi.advanceTimersByTimeAsync(Math.min(step, ms - done)));
}

const TOPUP = '061 5123456';
const PAYER = '061 7000001';

beforeEach(() => localStorage.clear());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the purchase form', () => {
  it('checks the number against the operator while typing', async () => {
    await useLanguage('en');
    open();
    const input = screen.getByLabelText('Number to top up');
    fireEvent.input(input, { target: { value: '062 512 3456' } });
    const help = document.getElementById('phone-help')!;
    expect(help.textContent).toBe('This is not a Hormuud number: it should start with 61, 77');
    // The operator's name in its own direction, the prefixes left to right (also in Arabic).
    expect([...help.querySelectorAll('bdi')].map((e) => [e.textContent, e.getAttribute('dir')])).toEqual([
      ['Hormuud', null],
      ['61, 77', 'ltr'],
    ]);
    expect(input.getAttribute('dir')).toBe('ltr');
    expect(input.getAttribute('type')).toBe('tel');
    fireEvent.input(input, { target: { value: '+252 61 512' } });
    expect(screen.queryByText(/is not a Hormuud number/)).toBeNull();
    fireEvent.input(input, { target: { value: '+252 61 512 3456' } });
    expect(input.getAttribute('aria-invalid')).toBe('false');
  });

  it('in Arabic, keeps the bundle name, the price and the numbers in their order (isolated)', async () => {
    await useLanguage('ae');
    open();
    const isolated = (el: Element) => [...el.querySelectorAll('bdi')].map((e) => [e.textContent, e.getAttribute('dir')]);
    // "شراء 1 GB Daily", not "GB Daily 1 شراء"; the price as "$0.50", not "0.50$".
    expect(isolated(document.getElementById('purchase-title')!)).toEqual([['1 GB Daily', null]]);
    expect(isolated(document.querySelector('.sheet > p.muted')!)).toEqual([
      ['Hormuud', null],
      ['1 GB', 'ltr'],
      ['$0.50', 'ltr'],
    ]);
    expect(isolated(document.querySelector('button[type=submit]')!)).toEqual([['$0.50', 'ltr']]);
    expect(isolated(document.querySelector('.choice')!)).toEqual([
      ['EVC Plus', null],
      ['615000000', 'ltr'],
    ]);
    // Typed numbers left to right (the page aligns them to the right).
    for (const id of ['phone', 'payer']) expect(document.getElementById(id)!.getAttribute('dir')).toBe('ltr');
    fireEvent.input(document.getElementById('phone')!, { target: { value: '+252 61 5123456' } });
    expect(isolated(document.querySelector('.instructions')!)).toEqual([[TOPUP, 'ltr']]);
  });

  it('with mobile money, says the PIN prompt comes to the paying number, and shows no dial code beside it', async () => {
    await useLanguage('en');
    open();
    expect(document.querySelector('.instructions')!.textContent).toBe('The paying phone will get a prompt: enter your PIN to approve.');
    fireEvent.input(document.getElementById('phone')!, { target: { value: '0615123456' } });
    expect(document.querySelector('.instructions')!.textContent).toBe(`You will get a prompt on ${TOPUP}: enter your PIN to approve.`);
    fireEvent.input(document.getElementById('payer')!, { target: { value: '+252 61 700 0001' } });
    expect(document.querySelector('.instructions')!.textContent).toBe(`You will get a prompt on ${PAYER}: enter your PIN to approve.`);
    expect(document.querySelector('.instructions bdi')!.getAttribute('dir')).toBe('ltr');
    expect(document.body.textContent).not.toMatch(/\*712|Dial/);
  });

  it('with a prompting method says only that (no "send the amount" beside the prompt); an in-person method cannot be bought here', async () => {
    await useLanguage('en');
    const edahab = { ...evc, id: 5, name: 'eDahab', type: 'edahab', instructions: 'Send the amount shown from your eDahab wallet.' };
    const calls = mockApi({});
    open({ methods: [edahab, bank] });
    expect(document.querySelectorAll('.instructions').length).toBe(1);
    expect(document.querySelector('.instructions')!.textContent).toBe('The paying phone will get a prompt: enter your PIN to approve.');
    expect(screen.queryByText(/Send the amount shown/)).toBeNull();
    fireEvent.click(screen.getByLabelText(/Bank/));
    expect(screen.queryByText(/enter your PIN/)).toBeNull();
    expect(document.querySelector('.instructions')!.textContent).toBe('Bank is paid to the shop in person, not here. To buy online, choose a mobile wallet.');
    expect(screen.getByText('Transfer to account SO12 3456, then send us the receipt.')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Pay $0.50' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.input(document.getElementById('phone')!, { target: { value: '0615123456' } });
    fireEvent.submit(document.querySelector('form')!);
    await flush();
    expect(calls.filter((c) => c.path.includes('/recharge'))).toHaveLength(0);
  });

  it('data cached before methods said whether they prompt: cash and bank never do, wallets do', async () => {
    await useLanguage('en');
    const { prompts_payer: _p, gateway: _g, ...oldEvc } = evc;
    const { prompts_payer: _q, gateway: _h, ...oldBank } = bank;
    open({ methods: [oldEvc as typeof evc, oldBank as typeof evc] });
    expect(document.querySelector('.instructions')!.textContent).toContain('enter your PIN');
    fireEvent.click(screen.getByLabelText(/Bank/));
    expect(document.querySelector('.instructions')!.textContent).toContain('in person');
  });

  it('a cash method is paid in person even when an answer says its payer is prompted (an old row charged through a gateway)', async () => {
    await useLanguage('en');
    const calls = mockApi({});
    const cash = { ...bank, id: 5, h_id: 'c', name: 'Cash', type: 'cash', gateway: 'waafipay', prompts_payer: true, account_number: null };
    open({ methods: [cash as unknown as typeof evc] });
    expect(screen.queryByText(/enter your PIN/)).toBeNull();
    expect(document.querySelector('.instructions')!.textContent).toBe('Cash is paid to the shop in person, not here. To buy online, choose a mobile wallet.');
    expect((screen.getByRole('button', { name: 'Pay $0.50' }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.input(document.getElementById('phone')!, { target: { value: '0615123456' } });
    fireEvent.submit(document.querySelector('form')!);
    await flush();
    expect(calls.filter((c) => c.path.includes('/recharge'))).toHaveLength(0);
  });

  it('says buying needs a connection when offline', async () => {
    await useLanguage('en');
    open({ online: false });
    expect(screen.getAllByText('Buying needs an internet connection.').length).toBeGreaterThan(0);
    expect((screen.getByRole('button', { name: 'Pay $0.50' }) as HTMLButtonElement).disabled).toBe(true);
  });
});

/** Each outcome with its own words: [outcome, money, status, the lines below the title as storefront.json keys]. */
type Line = [key: string, vars?: Record<string, string>];
const CASES: [Outcome, Money, Recharge['status'], Line[]][] = [
  ['awaiting_payment', 'nothing_taken', 'pending', [['outcome.awaiting_payment_help', { phone: PAYER, amount: '$0.50' }], ['outcome.updates']]],
  ['delivering', 'reserved', 'processing', [['outcome.delivering_help', { phone: TOPUP }], ['outcome.money_reserved'], ['outcome.updates']]],
  ['delivering', 'charged', 'processing', [['outcome.delivering_help', { phone: TOPUP }], ['outcome.updates']]],
  ['delayed', 'reserved', 'needs_review', [['outcome.delayed_help'], ['outcome.money_reserved'], ['outcome.updates']]],
  ['delayed', 'unknown', 'processing', [['outcome.delayed_help'], ['outcome.updates']]],
  [
    'delivered',
    'charged',
    'completed',
    [
      ['outcome.delivered_help', { bundle: '1 GB Daily', phone: TOPUP }],
      ['outcome.charged', { amount: '$0.50' }],
    ],
  ],
  ['delivered', 'returned', 'refunded', [['outcome.delivered_help', { bundle: '1 GB Daily', phone: TOPUP }], ['outcome.money_returned']]],
  ['declined', 'nothing_taken', 'failed', [['outcome.declined_help'], ['outcome.money_nothing_taken']]],
  ['not_delivered', 'nothing_taken', 'failed', [['outcome.money_nothing_taken']]],
  ['not_delivered', 'returned', 'refunded', [['outcome.money_returned']]],
  ['not_delivered', 'unknown', 'failed', [['outcome.money_unknown'], ['outcome.updates']]],
];

describe("each outcome's own words, in English and Arabic", () => {
  for (const lng of ['en', 'ae'] as const) {
    for (const [outcome, money, status, lines] of CASES) {
      it(`${lng}: ${outcome}, money ${money}`, async () => {
        await useLanguage(lng);
        mockApi({ post: [ok(recharge({ outcome, money, status, can_retry: outcome === 'declined' }), 201)] });
        open();
        await pay();
        expect(outcomeLines()).toEqual([word(lng, `outcome.${outcome}`), ...lines.map(([key, vars]) => word(lng, key, vars))]);
        // The reference, left to right, and the order page.
        const ref = [...document.querySelectorAll('bdi')].find((b) => b.textContent === REF)!;
        expect(ref.getAttribute('dir')).toBe('ltr');
        expect(screen.getByRole('link', { name: word(lng, 'outcome.see_order') }).getAttribute('href')).toBe(`/dealer/DEMO/order/${REF}`);
        expect(!!screen.queryByRole('button', { name: word(lng, 'outcome.try_again') })).toBe(outcome === 'declined');
      });
    }
  }

  it('in plain English: never "returned" when nothing was taken; sending asks for no approval', async () => {
    await useLanguage('en');
    mockApi({ post: [ok(recharge({ outcome: 'not_delivered', money: 'nothing_taken', status: 'failed', message: 'x' }), 201)] });
    open();
    await pay();
    expect(outcomeLines()).toEqual(['The bundle could not be delivered', 'Nothing was taken from your account.']);
    expect(document.body.textContent).not.toContain('returned');
    cleanup();

    mockApi({ post: [ok(recharge({ outcome: 'delivering', money: 'reserved', status: 'processing' }), 201)] });
    open();
    await pay();
    const text = outcomeLines().join(' ');
    expect(text).toContain('Payment approved: sending your bundle');
    expect(text).not.toMatch(/PIN|Approve the payment|to approve/);
  });

  it('in Arabic: the declined words, with the number and amount left to right', async () => {
    await useLanguage('ae');
    mockApi({ post: [ok(recharge({ outcome: 'awaiting_payment' }), 201)] });
    open();
    await pay();
    expect(outcomeLines()[0]).toBe('وافق على الدفع من هاتفك');
    expect([...document.querySelectorAll('.outcome bdi')].map((b) => [b.textContent, b.getAttribute('dir')])).toEqual([
      [PAYER, 'ltr'],
      ['$0.50', 'ltr'],
    ]);
    cleanup();
    mockApi({ post: [ok(recharge({ outcome: 'declined', status: 'failed', can_retry: true }), 201)] });
    open();
    await pay();
    expect(outcomeLines()).toEqual(['لم تتم الموافقة على الدفع', 'تحقق من رصيدك وحاول مرة أخرى.', 'لم يُخصم أي مبلغ من حسابك.']);
  });

  it("falls back to the server's words for a combination without words of ours", async () => {
    await useLanguage('en');
    mockApi({
      post: [ok(recharge({ outcome: 'not_delivered', money: 'charged', status: 'failed', message: 'Ask the shop: your payment is being returned.' }), 201)],
    });
    open();
    await pay();
    expect(outcomeLines()).toEqual(['The bundle could not be delivered', 'Ask the shop: your payment is being returned.']);
  });
});

describe('after paying', () => {
  it('follows the purchase: approve on the phone, then sending, then done (with backoff)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await useLanguage('en');
    const calls = mockApi({
      post: [ok(recharge(), 201)],
      get: [
        ok(recharge()),
        ok(recharge({ outcome: 'delivering', money: 'reserved', status: 'processing' })),
        ok(recharge({ outcome: 'delivering', money: 'reserved', status: 'processing' })),
        ok(recharge({ outcome: 'delivered', money: 'charged', status: 'completed' })),
      ],
    });
    open();
    await pay();
    expect(outcomeLines()[0]).toBe('Approve the payment on your phone');
    const polls = () => calls.filter((c) => c.method === 'GET' && c.path.startsWith('/recharge/'));
    await act(() => vi.advanceTimersByTimeAsync(1999));
    expect(polls()).toHaveLength(0);
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(polls()).toHaveLength(1);
    expect(polls()[0].path).toBe(`/recharge/${REF}`);
    // Still awaiting: asked again a little later (2.8 s), not at 2 s.
    await act(() => vi.advanceTimersByTimeAsync(2000));
    expect(polls()).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(800));
    expect(polls()).toHaveLength(2);
    expect(outcomeLines()[0]).toBe('Payment approved: sending your bundle');
    expect(outcomeLines().join(' ')).not.toMatch(/PIN/);
    expect(screen.queryByRole('button', { name: 'Done' })).toBeNull();
    // A new outcome starts the backoff again: 2 s.
    await act(() => vi.advanceTimersByTimeAsync(2000));
    await act(() => vi.advanceTimersByTimeAsync(2800));
    expect(polls()).toHaveLength(4);
    expect(outcomeLines()).toEqual(['Done! Your bundle is active', `1 GB Daily was sent to ${TOPUP}.`, 'Amount charged: $0.50.']);
    expect(screen.getByRole('button', { name: 'Done' })).toBeTruthy();
    // Settled: no more asking.
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(polls()).toHaveLength(4);
  });

  it('stops asking after a few minutes of delay and says to check back on the order page', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await useLanguage('en');
    const delayed = recharge({ outcome: 'delayed', money: 'reserved', status: 'needs_review' });
    const calls = mockApi({ post: [ok(delayed, 201)], get: [ok(delayed)] });
    open();
    await pay();
    expect(outcomeLines()).toContain('This page updates by itself.');
    await advance(SLOW_GIVE_UP_MS + 10_000);
    const asked = calls.filter((c) => c.method === 'GET').length;
    expect(asked).toBeGreaterThan(10);
    expect(asked).toBeLessThan(40);
    expect(screen.getByText('This is taking longer than usual. Check back later on your order page.')).toBeTruthy();
    expect(outcomeLines()).not.toContain('This page updates by itself.');
    expect(screen.getByRole('link', { name: 'Open your order page' }).getAttribute('href')).toBe(`/dealer/DEMO/order/${REF}`);
    await advance(10 * 60_000, 5000);
    expect(calls.filter((c) => c.method === 'GET').length).toBe(asked);
    // The last known state is kept for the order page offline.
    expect(JSON.parse(localStorage.getItem('storefront:dealer:DEMO')!).orders[REF].outcome).toBe('delayed');
  });

  it('declined: Try again buys the same bundle for the same numbers as a new purchase (a new key)', async () => {
    await useLanguage('en');
    const calls = mockApi({
      post: [ok(recharge({ outcome: 'declined', status: 'failed', can_retry: true }), 201), ok(recharge({ id: 42, reference: 'RC0000000002' }), 201)],
    });
    open();
    await pay();
    expect(outcomeLines().slice(0, 2)).toEqual(['The payment was not approved', 'Check your balance and try again.']);
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await flush();
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(2);
    const [first, second] = posts.map((p) => p.body!);
    expect(second.idempotency_key).not.toBe(first.idempotency_key);
    expect({ ...second, idempotency_key: null }).toEqual({ ...first, idempotency_key: null });
    expect(first).toMatchObject({ bundle_id: 9, phone: '615123456', payer_phone: '617000001', payment_method_id: 3 });
    expect(outcomeLines()[0]).toBe('Approve the payment on your phone');
    expect(screen.getByText('RC0000000002')).toBeTruthy();
  });
});

/** A refusal as the API sends it: its generic summary, and its own words per field. */
const refused = (errors: Record<string, string[]>) => ({ status: 422, message: 'Validation failed. Please check your inputs.', errors });

function openWith(onStale: (what: string) => void) {
  return render(
    <PurchaseDialog
      code="DEMO"
      provider={provider}
      bundle={bundle}
      currency="USD"
      methods={[evc]}
      online
      onClose={() => undefined}
      onBought={() => undefined}
      onStale={onStale}
    />,
  );
}

describe("the server's refusals, in its own words", () => {
  it('a bundle switched off while the page was open: the server\'s sentence (not "Validation failed"), Pay off, the shop reloads its bundles', async () => {
    await useLanguage('en');
    mockApi({ post: [refused({ bundle_id: ['This bundle is not available in this shop.'] })] });
    const onStale = vi.fn();
    openWith(onStale);
    await pay();
    expect(screen.getByRole('alert').textContent).toBe('This bundle is not available in this shop.');
    expect(document.body.textContent).not.toContain('Validation failed');
    expect(onStale).toHaveBeenCalledWith('bundle');
    expect((screen.getByRole('button', { name: 'Pay $0.50' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('a field the form has: its words beside it, marked invalid; the top of the sheet says to check the form', async () => {
    await useLanguage('en');
    const words = 'EVC Plus is paid from a Hormuud number: it should start with 61, 77.';
    mockApi({ post: [refused({ payer_phone: [words] })] });
    openWith(vi.fn());
    await pay();
    const help = document.getElementById('payer-help')!;
    expect([help.textContent, help.className]).toEqual([words, 'help error']);
    expect(document.getElementById('payer')!.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('alert').textContent).toBe('Check the numbers and the payment method.');
  });

  it('a payment method switched off: its words in the method list, and the shop reloads its methods', async () => {
    await useLanguage('so');
    mockApi({ post: [refused({ payment_method_id: ['Habkan lacag bixinta dukaankan laguma bixiyo.'] })] });
    const onStale = vi.fn();
    openWith(onStale);
    await pay();
    expect(document.querySelector('fieldset .help.error')!.textContent).toBe('Habkan lacag bixinta dukaankan laguma bixiyo.');
    expect(onStale).toHaveBeenCalledWith('methods');
    expect(screen.getByRole('alert').textContent).toBe(word('so', 'purchase.fix_form'));
  });

  it("the shop closed while the page was open: the server's words, and the shop asks again (it then shows itself closed)", async () => {
    await useLanguage('en');
    mockApi({ post: [{ status: 404, message: 'This shop was not found or is closed. Check the dealer code.' }] });
    const onStale = vi.fn();
    openWith(onStale);
    await pay();
    expect(onStale).toHaveBeenCalledWith('shop');
  });
});

describe('a payment service that is slow or down', () => {
  it.each(['en', 'ae', 'so'] as const)('%s: a prompt not sent yet: said so, that nothing is taken, and to wait or try later', async (lng) => {
    await useLanguage(lng);
    mockApi({ post: [ok(recharge({ detail: 'payment_slow' }), 201)] });
    open();
    await pay();
    expect(outcomeLines()).toEqual([
      word(lng, 'outcome.payment_slow'),
      word(lng, 'outcome.payment_slow_help', { phone: PAYER, amount: '$0.50' }),
      word(lng, 'outcome.money_nothing_taken_yet'),
      word(lng, 'outcome.payment_slow_todo'),
      word(lng, 'outcome.updates'),
    ]);
    cleanup();
  });

  it('while following: "approve on your phone" turns into "the prompt has not been sent yet" as soon as the API says so', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    await useLanguage('en');
    mockApi({ post: [ok(recharge(), 201)], get: [ok(recharge()), ok(recharge()), ok(recharge({ detail: 'payment_slow' }))] });
    open();
    await pay();
    expect(outcomeLines()[0]).toBe('Approve the payment on your phone');
    // Polls at 2 s, 4.8 s and 8.7 s: the third answer is the slow one.
    await advance(9000);
    expect(outcomeLines()[0]).toBe('The payment prompt has not been sent yet');
    expect(outcomeLines()).toContain('Nothing has been taken from your account.');
  });

  it('failed before any payment was taken: "the payment could not be started; nothing was taken", never "could not be delivered", with Try again', async () => {
    await useLanguage('en');
    mockApi({
      post: [ok(recharge({ outcome: 'not_delivered', money: 'nothing_taken', detail: 'payment_not_started', status: 'failed', can_retry: true }), 201)],
    });
    open();
    await pay();
    expect(outcomeLines()).toEqual([
      'The payment could not be started',
      'The bundle was not sent. You can try again now or later.',
      'Nothing was taken from your account.',
    ]);
    expect(document.body.textContent).not.toContain('could not be delivered');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });
});

describe('the success screen', () => {
  it.each(['so', 'ae'] as const)('%s: states the bundle, the number topped up and the amount charged with its currency', async (lng) => {
    await useLanguage(lng);
    mockApi({ post: [ok(recharge({ outcome: 'delivered', money: 'charged', status: 'completed', amount: '12500', currency: 'SOS' }), 201)] });
    open();
    await pay();
    expect(outcomeLines()).toEqual([
      word(lng, 'outcome.delivered'),
      word(lng, 'outcome.delivered_help', { bundle: '1 GB Daily', phone: TOPUP }),
      word(lng, 'outcome.charged', { amount: '12500 SOS' }),
    ]);
    // The bundle in its own direction, the number and the amount left to right.
    expect([...document.querySelectorAll('.outcome bdi')].map((b) => [b.textContent, b.getAttribute('dir')])).toEqual([
      ['1 GB Daily', null],
      [TOPUP, 'ltr'],
      ['12500 SOS', 'ltr'],
    ]);
    cleanup();
  });
});

/** The sheet as the shop opens it: from a Buy button (focus comes back to it), closed by the shop. */
function openFromButton({
  providers,
  methods = [evc],
  prov = provider,
}: { providers?: (typeof provider)[]; methods?: (typeof evc)[]; prov?: typeof provider } = {}) {
  const opener = document.createElement('button');
  opener.textContent = 'Buy';
  document.body.append(opener);
  opener.focus();
  const onClose = vi.fn();
  const view = render(
    <PurchaseDialog
      code="DEMO"
      provider={prov}
      providers={providers}
      bundle={bundle}
      currency="USD"
      methods={methods}
      online
      onClose={onClose}
      onBought={() => undefined}
    />,
  );
  return { opener, onClose, view };
}

const tab = (shiftKey = false) => fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Tab', shiftKey });
const backEvent = () =>
  act(async () => {
    history.back();
    await new Promise((r) => setTimeout(r, 50));
  });

describe('the buy sheet as a modal (issue 28 item 11)', () => {
  afterEach(() => document.querySelectorAll('body > button').forEach((b) => b.remove()));

  it('focuses the number on opening, keeps Tab and Shift+Tab inside, and gives focus back to the Buy button on closing', async () => {
    await useLanguage('en');
    const { opener, view } = openFromButton();
    const sheet = screen.getByRole('dialog');
    expect(document.activeElement).toBe(document.getElementById('phone'));
    const close = screen.getByRole('button', { name: 'Close' });
    const pay = screen.getByRole('button', { name: 'Pay $0.50' });
    // From the last stop (Pay) Tab goes round to the first (Close); Shift+Tab from the first to the last.
    pay.focus();
    tab();
    expect(document.activeElement).toBe(close);
    tab(true);
    expect(document.activeElement).toBe(pay);
    // Focus that leaves the sheet (the page behind) is brought back in.
    opener.focus();
    expect(sheet.contains(document.activeElement)).toBe(true);
    view.unmount();
    expect(document.activeElement).toBe(opener);
  });

  it("closes with the phone's back button (its own history entry), and takes the entry back when closed another way", async () => {
    await useLanguage('en');
    // Earlier sheets' entries settled; this page's own entry, as a shop page has it.
    await act(() => new Promise((r) => setTimeout(r, 50)));
    history.replaceState(null, '', '/dealer/DEMO');
    const { onClose, view } = openFromButton();
    expect(history.state?.sheet).toBe(true);
    await backEvent();
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(history.state?.sheet).toBeFalsy();
    expect(location.pathname).toBe('/dealer/DEMO');
    view.unmount();
    // Closed by its button: the entry it added is gone again (back would not reopen or stay on a dead entry).
    const second = openFromButton();
    expect(history.state?.sheet).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(second.onClose).toHaveBeenCalledTimes(1);
    second.view.unmount();
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect(history.state?.sheet).toBeFalsy();
  });

  it('an empty number is marked on its field (aria-invalid, the words under it) and focused; typing clears the mark', async () => {
    await useLanguage('so');
    const calls = mockApi({});
    openFromButton();
    screen.getByRole('button', { name: 'Bixi $0.50' }).focus();
    fireEvent.submit(document.querySelector('form')!);
    await flush();
    const input = document.getElementById('phone')!;
    expect(input.getAttribute('aria-invalid')).toBe('true');
    const help = document.getElementById('phone-help')!;
    expect([help.textContent, help.className]).toEqual([word('so', 'purchase.phone_empty'), 'help error']);
    expect(input.getAttribute('aria-describedby')).toBe('phone-help');
    expect(document.activeElement).toBe(input);
    expect(calls.filter((c) => c.path === '/recharge')).toHaveLength(0);
    fireEvent.input(input, { target: { value: '06151' } });
    expect(input.getAttribute('aria-invalid')).toBe('false');
  });

  it('after a decline the paying number can be changed, and the purchase goes again from the new one', async () => {
    await useLanguage('ae');
    const calls = mockApi({
      post: [ok(recharge({ outcome: 'declined', status: 'failed', can_retry: true }), 201), ok(recharge({ id: 42, reference: 'RC0000000002' }), 201)],
    });
    openFromButton();
    await pay();
    fireEvent.click(screen.getByRole('button', { name: word('ae', 'outcome.change_payer') }));
    const payer = document.getElementById('payer') as HTMLInputElement;
    expect(document.activeElement).toBe(payer);
    // The number that was declined, to correct; the number to top up kept.
    expect(payer.value).toBe('0617000001');
    expect((document.getElementById('phone') as HTMLInputElement).value).toBe('0615123456');
    fireEvent.input(payer, { target: { value: '0617000002' } });
    fireEvent.submit(document.querySelector('form')!);
    await flush();
    const posts = calls.filter((c) => c.method === 'POST').map((p) => p.body!);
    expect(posts).toHaveLength(2);
    expect(posts[1]).toMatchObject({ phone: '615123456', payer_phone: '617000002' });
    expect(posts[1].idempotency_key).not.toBe(posts[0].idempotency_key);
    expect(screen.getByText('RC0000000002')).toBeTruthy();
  });

  it("gives examples on the operator's and the wallet's own prefixes (Golis: 090, not 061), naming only the prefixes the shop uses", async () => {
    await useLanguage('en');
    const golis = { ...provider, id: 2, name: 'Golis', code: 'GOLIS', phone_prefixes: ['90'] };
    const sahal = { ...evc, id: 6, name: 'Sahal', type: 'sahal', account_number: '905000000' };
    openFromButton({ prov: golis, providers: [provider, golis], methods: [sahal, evc] });
    const phoneHelp = document.getElementById('phone-help')!;
    expect(phoneHelp.textContent).toBe('A Somali number starting with 90, e.g. 090 5123456 or +252 90 5123456');
    expect(document.getElementById('phone')!.getAttribute('placeholder')).toBe('090 5123456');
    const payerHelp = document.getElementById('payer-help')!;
    expect(payerHelp.textContent).toBe('The Sahal number that approves the payment: it starts with 90, e.g. 090 5123456 (empty: the number to top up)');
    expect(document.getElementById('payer')!.getAttribute('placeholder')).toBe('090 5123456');
    // EVC Plus: Hormuud as this shop sells it (61, 77), not every Hormuud prefix (68).
    fireEvent.click(screen.getByLabelText(/EVC Plus/));
    expect(payerHelp.textContent).toBe('The EVC Plus number that approves the payment: it starts with 61, 77, e.g. 061 5123456 (empty: the number to top up)');
    expect(document.body.textContent).not.toMatch(/\b68\b/);
    // A payer off the wallet's network is said at once, on its field.
    fireEvent.input(document.getElementById('payer')!, { target: { value: '0905123456' } });
    expect(payerHelp.textContent).toBe('EVC Plus is paid from a Hormuud number: it should start with 61, 77');
    expect(document.getElementById('payer')!.getAttribute('aria-invalid')).toBe('true');
  });
});

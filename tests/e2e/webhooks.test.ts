import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { ADMIN, DEALER, artifactPath, useServerAndBrowser, apiData, signedInAt } from './harness';

/**
 * Webhooks in the browser, with a real receiver on loopback (allowed outside production): the DEMO
 * dealer sets its URL on /webhooks and copies the secret shown once, a test event fails once at
 * the receiver and shows as retrying with the answer's code and excerpt, "Resend" delivers it under
 * the same webhook-id, a real sale's recharge.delivered arrives signed, and a rotation signs with
 * both secrets. The receiver checks every signature with the standardwebhooks package. An admin sees every
 * dealer's deliveries and picks one dealer. Screenshots at 390 px and in Arabic.
 */
const env = useServerAndBrowser();

interface Received {
  id: string;
  timestamp: string;
  signatures: string[];
  headers: Record<string, string>;
  body: string;
  event: { type: string; timestamp: string; data: Record<string, unknown> };
}

/** A webhook receiver: records what it gets, answers 500 for the next `failNext` requests, else 200. */
const receiver = {
  server: null as http.Server | null,
  url: '',
  got: [] as Received[],
  failNext: 0,
};

beforeAll(async () => {
  receiver.server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
      };
      receiver.got.push({
        id: headers['webhook-id'],
        timestamp: headers['webhook-timestamp'],
        signatures: headers['webhook-signature'].split(' '),
        headers,
        body,
        event: JSON.parse(body),
      });
      if (receiver.failNext > 0) {
        receiver.failNext -= 1;
        res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver down for maintenance');
      } else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => receiver.server!.listen(0, '127.0.0.1', r));
  receiver.url = `http://127.0.0.1:${(receiver.server!.address() as AddressInfo).port}/hooks/bundles`;
});
afterAll(() => new Promise<void>((r) => (receiver.server ? receiver.server.close(() => r()) : r())));

/** The receiver's check, as an integrator writes it: Standard Webhooks' own library. */
const signedWith = (r: Received, secret: string) => {
  try {
    new Webhook(secret).verify(r.body, r.headers);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(what: () => T | undefined, label: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const signedIn = (who: typeof ADMIN, path: string, viewport?: { width: number; height: number }) => signedInAt(env, who, path, viewport);

const api = <T = unknown>(path: string, init: Parameters<typeof apiData>[2] = {}) => apiData<T>(env.server, path, init);

/** A real sale: DEMO's wallet topped up by the admin, then a customer buys 1 GB Daily on its storefront. */
async function sell(key: string): Promise<{ reference: string }> {
  const { token } = await api<{ token: string }>('/auth/admin/login', { method: 'POST', body: ADMIN });
  const [wallet] = await api<{ id: number }[]>('/wallets?q=DEMO', { token });
  await api(`/wallets/${wallet.id}/top-up`, { method: 'POST', token, body: { amount: '5.00', reference: `EVC-${key}` } });
  const headers = { dealer_code: 'DEMO' };
  const catalogue = await api<{ providers: { categories: { bundles: { id: number; name: string }[] }[] }[] }>('/client/dealer/providers', { headers });
  const bundle = catalogue.providers[0].categories[0].bundles.find((b) => b.name === '1 GB Daily')!;
  const methods = await api<{ id: number }[]>('/client/payment-methods', { headers });
  return api('/client/recharge', {
    method: 'POST',
    headers,
    body: { bundle_id: bundle.id, payment_method_id: methods[0].id, phone: '0615123456', payer_phone: '0617000021', idempotency_key: key },
  });
}

const deliveryRow = (page: Page, text: string) => page.getByRole('row').filter({ hasText: text });

describe('webhooks', () => {
  it('a dealer sets its URL, copies the secret, sees a failed try and resends it, gets a real sale signed, and rotates', async () => {
    const { page, errors, close } = await signedIn(DEALER, '/webhooks');
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No webhook is set', { exact: false }).waitFor();
    await page.getByText('No events yet.', { exact: false }).waitFor();

    // A plain-http address elsewhere is refused by the shared schema before anything is sent.
    await page.getByLabel('Webhook URL').fill('http://shop.example.so/hooks');
    await page.getByRole('button', { name: 'Set webhook' }).click();
    await page.getByText('The address must start with https://', { exact: false }).waitFor();

    await page.getByLabel('Webhook URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Set webhook' }).click();
    const shown = page.getByRole('dialog', { name: 'Your signing secret' });
    await shown.getByText('You will not see it again', { exact: false }).waitFor();
    const secret = await shown.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Secret copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    // Afterwards only its end shows.
    await page.getByText(`whsec_…${secret.slice(-4)}`).waitFor();
    expect(await page.getByText(secret).count()).toBe(0);

    // A test event: the receiver fails the first try; the log says so with the answer.
    receiver.failNext = 1;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText('Test event queued', { exact: false }).waitFor();
    const first = await until(() => receiver.got.find((r) => r.event.type === 'webhook.test'), 'the test event');
    expect(signedWith(first, secret)).toBe(true);
    const testRow = deliveryRow(page, 'Test event');
    await testRow.getByText('Retrying').waitFor();
    await testRow.getByText('500', { exact: true }).waitFor();
    await testRow.getByText('receiver down for maintenance').waitFor();

    await testRow.getByRole('button', { name: /^Resend/ }).click();
    await page.getByText('The event will be sent again now.').waitFor();
    await testRow.getByText('Delivered').waitFor();
    await testRow.getByText('200', { exact: true }).waitFor();
    const tries = receiver.got.filter((r) => r.event.type === 'webhook.test');
    expect(tries).toHaveLength(2);
    expect(tries[1].id).toBe(tries[0].id);
    expect(tries[1].body).toBe(tries[0].body);
    expect(tries.every((r) => signedWith(r, secret))).toBe(true);

    // A real sale: its delivery reaches the receiver, signed, and shows in the log.
    const sale = await sell('e2e-webhook-sale-1');
    const completed = await until(() => receiver.got.find((r) => r.event.type === 'recharge.delivered'), 'recharge.delivered', 60_000);
    expect(completed.event.data.reference).toBe(sale.reference);
    expect(completed.event.data.status).toBe('completed');
    expect(completed.id).toMatch(/^evt_/);
    expect(signedWith(completed, secret)).toBe(true);
    const saleRow = deliveryRow(page, 'Sale delivered');
    await saleRow.getByText('Delivered', { exact: true }).waitFor();

    // Its page over the log: the body exactly as sent, with the sale's reference.
    await saleRow.getByText('Sale delivered').click();
    const drawer = page.getByRole('region', { name: 'Sale delivered' });
    await drawer.getByText('Body sent').waitFor();
    await drawer.getByText(completed.id).first().waitFor();
    await drawer.getByText(`"reference": "${sale.reference}"`).waitFor();
    await drawer.getByRole('button', { name: 'Close' }).click();
    await drawer.waitFor({ state: 'detached' });

    // Rotation, after a confirmation: a new secret shown once; events carry both signatures for 24 h.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
    const rotated = page.getByRole('dialog', { name: 'Your signing secret' });
    const newSecret = await rotated.getByLabel('Signing secret').inputValue();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    await rotated.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByText('The previous secret also signs every event until', { exact: false }).waitFor();
    const before = receiver.got.length;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const afterRotation = await until(() => receiver.got.slice(before).find((r) => r.event.type === 'webhook.test'), 'the test after rotation');
    expect(afterRotation.signatures).toHaveLength(2);
    expect(signedWith(afterRotation, newSecret)).toBe(true);
    expect(signedWith(afterRotation, secret)).toBe(true);

    // Filters: failed events only (none).
    await page.getByLabel('Status').click();
    await page.getByRole('option', { name: 'Failed' }).click();
    await page.getByText('No events match these filters.').waitFor();
    expect(errors).toEqual([]);
    await close();
  });

  it('an admin sees every dealer’s deliveries, then one dealer’s webhook', async () => {
    const { page, errors, close } = await signedIn(ADMIN, '/webhooks');
    await page.getByRole('columnheader', { name: 'Dealer' }).waitFor();
    await deliveryRow(page, 'Sale delivered').getByText('Demo Dealer').waitFor();
    await page.getByText('Choose the dealer whose webhook', { exact: false }).waitFor();
    await page.getByLabel('Dealer').fill('DEMO');
    await page.getByRole('option', { name: 'Demo Dealer (DEMO)' }).click();
    await page.getByRole('region', { name: 'Endpoint' }).getByText('whsec_…', { exact: false }).waitFor();
    await expect.poll(() => page.getByLabel('Webhook URL').inputValue()).toBe(receiver.url);
    // The log keeps to the dealer chosen (no dealer column), and the choice is in the URL.
    await page.getByRole('columnheader', { name: 'Dealer' }).waitFor({ state: 'detached' });
    expect(decodeURIComponent(new URL(page.url()).search)).toContain('"dealer_id"');
    await page.reload();
    await expect.poll(() => page.getByLabel('Webhook URL').inputValue(), { timeout: 30_000 }).toBe(receiver.url);
    expect(errors).toEqual([]);
    await close();
  });

  it('at 390 px and in Arabic: settings and the log as a simple list, a delivery’s page, nothing sideways', async () => {
    const { page, errors, close } = await signedIn(DEALER, '/webhooks', { width: 390, height: 844 });
    await page.getByText('Sale delivered').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.screenshot({ path: artifactPath('webhooks-390.png'), fullPage: true });
    await page.getByText('Sale delivered').first().click();
    await page.getByRole('region', { name: 'Sale delivered' }).getByText('Body sent').waitFor();
    await page.screenshot({ path: artifactPath('webhooks-390-delivery.png') });
    await page.getByRole('button', { name: 'Close' }).click();

    await page.getByTestId('language-switcher').click();
    await page.getByRole('menuitem', { name: 'العربية' }).click();
    await page.getByRole('heading', { name: 'الويب هوك', level: 1 }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await page.getByText('تسليم عملية بيع').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // Nothing changed yet: nothing to save.
    expect(await page.getByRole('button', { name: 'حفظ', exact: true }).isDisabled()).toBe(true);
    await page.screenshot({ path: artifactPath('webhooks-390-ae.png'), fullPage: true });
    await page.getByRole('button', { name: 'تغيير السر' }).click();
    await page.getByRole('dialog', { name: 'تغيير سر التوقيع؟' }).waitFor();
    // The screenshot after the dialog's fade-in, not halfway through it.
    await page.waitForFunction(() => [...document.querySelectorAll('.MuiDialog-container')].every((el) => getComputedStyle(el).opacity === '1'));
    await page.screenshot({ path: artifactPath('webhooks-390-ae-rotate.png') });
    await page.getByRole('button', { name: 'إلغاء' }).click();
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.getByRole('columnheader', { name: 'الحدث' }).waitFor();
    await page.screenshot({ path: artifactPath('webhooks-ae.png'), fullPage: true });
    expect(errors).toEqual([]);
    await close();
  });
});

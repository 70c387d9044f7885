import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render, screen, within } from '@testing-library/react';
import { AdminContext, memoryStore, type AuthProvider } from 'react-admin';
import type { RechargeResponse } from '@app/contracts';
import { dataProvider } from '../providers/dataProvider';
import { testI18nProvider } from '../test/i18n';
import { serveRoutes } from '../test/fetchMock';
import { RechargeDetail } from './RechargeDetail';

/**
 * Issue 28 item 9: a failed sale's page says why it failed in the reader's language (the API's
 * failure_summary, as "Failure reason") and keeps what was recorded, often the vendor's English,
 * as "Vendor's words", left to right inside Arabic.
 */
const authProvider: AuthProvider = {
  login: async () => undefined,
  logout: async () => undefined,
  checkAuth: async () => undefined,
  checkError: async () => undefined,
  getPermissions: async () => ['view recharges'],
};

const sale = (over: Partial<RechargeResponse>) =>
  ({
    id: 51,
    h_id: 'r51',
    reference: 'RC0000000051',
    mode: 'live',
    dealer: { id: 3, h_id: 'x3', name: 'Demo Dealer', dealer_code: 'DEMO' },
    status: 'failed',
    provider_name: 'Hormuud',
    category_name: 'Daily',
    bundle_name: '1 GB Daily',
    pricing_model: 'cost',
    phone: '615559999',
    payer_phone: '615552001',
    payment_method: 'EVC Plus',
    amount: '0.55',
    currency: 'USD',
    attempts: 1,
    payment_state: 'released',
    delivery_state: 'failed',
    failure_reason: 'No route can deliver this bundle: no active route',
    failure_summary: 'No delivery route could sell this bundle',
    review_reason: null,
    created_at: '2026-11-26T09:00:00.000Z',
    ...over,
  }) as RechargeResponse;

const detail = (r: RechargeResponse) => () => ({ body: { success: true, data: { recharge: r, timeline: [], transactions: [], remote_calls: [] } } });

/** The drawer's row labelled `label`: its cells. */
async function rowOf(label: string) {
  const drawer = await screen.findByRole('dialog');
  await within(drawer).findByText(/RC0000000051/);
  return within(drawer)
    .queryAllByRole('row')
    .find((tr) => tr.querySelector('th, td')?.textContent === label);
}

async function renderDetail(r: RechargeResponse, lng = 'en') {
  serveRoutes({ 'GET /api/v1/recharges/51': detail(r) });
  render(
    <AdminContext dataProvider={dataProvider} authProvider={authProvider} i18nProvider={await testI18nProvider(lng)} store={memoryStore()}>
      <RechargeDetail id="51" onClose={() => undefined} />
    </AdminContext>,
  );
}

afterEach(() => cleanup());

describe("a failed sale's reason", () => {
  it("shows the summary as the failure reason and the recorded text as the vendor's words", async () => {
    await renderDetail(sale({}));
    expect((await rowOf('Failure reason'))!.textContent).toBe('Failure reasonNo delivery route could sell this bundle');
    const words = (await rowOf("Vendor's words"))!;
    expect(words.textContent).toBe("Vendor's wordsNo route can deliver this bundle: no active route");
    expect(words.querySelector('bdi[dir="ltr"]')!.textContent).toBe('No route can deliver this bundle: no active route');
  });

  it('in Arabic: the summary as the API wrote it in Arabic, the vendor’s English kept left to right', async () => {
    await renderDetail(sale({ failure_summary: 'لا يوجد مسار تسليم يمكنه بيع هذه الباقة' }), 'ae');
    expect((await rowOf('سبب الفشل'))!.textContent).toBe('سبب الفشللا يوجد مسار تسليم يمكنه بيع هذه الباقة');
    expect((await rowOf('نص المورّد'))!.querySelector('bdi[dir="ltr"]')!.textContent).toBe('No route can deliver this bundle: no active route');
  });

  it('has neither row for a delivered sale', async () => {
    await renderDetail(sale({ status: 'completed', payment_state: 'collected', delivery_state: 'delivered', failure_reason: null, failure_summary: null }));
    expect(await rowOf('Failure reason')).toBeUndefined();
    expect(await rowOf("Vendor's words")).toBeUndefined();
  });
});

describe('why a sale waits for a person', () => {
  const waiting = {
    status: 'needs_review',
    payment_state: 'releasing',
    failure_reason: null,
    failure_summary: null,
    needs_review_at: '2026-11-26T09:01:00.000Z',
    review_code: 'return_refused',
    review_reason: 'The payment gateway refused returning the payment (refused: E10320 API_PREAUTHORIZE_CANCEL refused by the gateway).',
  } as const;

  it("in Arabic: the reason in Arabic from its code, the system's English sentence kept left to right beside it", async () => {
    await renderDetail(sale({ ...waiting, review_summary: 'رفضت بوابة الدفع إعادة المبلغ. قرّر ما حدث؛ قد يلزم رده يدويًا.' }), 'ae');
    const alert = await screen.findByText('رفضت بوابة الدفع إعادة المبلغ. قرّر ما حدث؛ قد يلزم رده يدويًا.', { exact: false });
    expect(alert.textContent).toContain('بكلمات النظام');
    expect(alert.querySelector('bdi[dir="ltr"]')!.textContent).toBe(waiting.review_reason);
  });

  it('a sale sent to review before codes existed shows its sentence once', async () => {
    await renderDetail(sale({ ...waiting, review_code: null, review_summary: waiting.review_reason }));
    const alert = await screen.findByText(waiting.review_reason, { exact: false });
    expect(alert.textContent).not.toContain("In the system's words");
  });
});

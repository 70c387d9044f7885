import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, screen, waitFor } from '@testing-library/react';
import type { ConnectorMode } from '@app/contracts';
import { serveRoutes } from '../test/fetchMock';
import { ok, renderScreen } from '../test/renderScreen';
import { clearSession } from '../providers/session';
import { SandboxChip } from './SandboxChip';
import { ConnectorModeLine } from '../dashboard/ConnectorModeLine';
import { stubPhoneWidth } from '../test/phoneWidth';

/**
 * Live or sandbox (issue 28 item 12) against the console's real dataProvider: the top bar's chip
 * while payments are not real (its words in its name, only its icon on a phone), nothing once they
 * are, no call without 'view dashboard'; the dashboard's line either way.
 */
const SANDBOX: ConnectorMode = { payments: 'sandbox', deliveries: 'sandbox', sms: 'sandbox' };
const LIVE: ConnectorMode = { payments: 'live', deliveries: 'live', sms: 'live' };
const NOT_CHARGED = 'Payments are not real: customers are not charged';

const answering = (mode: ConnectorMode) => serveRoutes({ 'GET /api/v1/connectors/mode': () => ok(mode) });
const chip = (lng = 'en') => renderScreen(<SandboxChip />, { path: '/', url: '/', permissions: ['view dashboard'], lng });

/** A phone's width: MUI's useMediaQuery asks matchMedia (every query matches). */
const onPhone = () => stubPhoneWidth();

afterEach(() => {
  cleanup();
  clearSession();
  vi.unstubAllGlobals();
});

describe('the top bar chip', () => {
  it('says "Sandbox" while payments are not real, and why (deliveries too) in its name, opening the dashboard', async () => {
    answering(SANDBOX);
    await chip();
    const link = await screen.findByRole('link', { name: `Sandbox: ${NOT_CHARGED}. Deliveries are not real either: no bundle reaches a phone.` });
    expect(link.textContent).toBe('Sandbox');
    expect(link.getAttribute('href')).toBe('/dashboard');
    expect(link.className).toContain('MuiChip-colorWarning');
  });

  it('names mixed deliveries', async () => {
    answering({ payments: 'sandbox', deliveries: 'mixed', sms: 'live' });
    await chip();
    expect(await screen.findByRole('link', { name: `Sandbox: ${NOT_CHARGED}. Some deliveries go through stand-ins, not real aggregators.` })).toBeTruthy();
  });

  it('says "Mixed" for mixed payments (a real eDahab beside the stand-in gateway), saying only some are not real', async () => {
    answering({ payments: 'mixed', deliveries: 'sandbox', sms: 'live' });
    await chip();
    const link = await screen.findByRole('link', {
      name: 'Mixed: Some payment methods are not real: customers who pay with them are not charged. Deliveries are not real either: no bundle reaches a phone.',
    });
    expect(link.textContent).toBe('Mixed');
    expect(link.className).toContain('MuiChip-colorWarning');
  });

  it('says "No deliveries", in red, while payments are real and nothing may deliver', async () => {
    answering({ payments: 'live', deliveries: 'none', sms: 'live' });
    await chip();
    const link = await screen.findByRole('link', { name: 'No deliveries: No real aggregator may deliver: no bundle can reach a phone.' });
    expect(link.textContent).toBe('No deliveries');
    expect(link.className).toContain('MuiChip-colorError');
  });

  it('shows nothing once payments are live', async () => {
    const calls = answering(LIVE);
    const { container } = await chip();
    await waitFor(() => expect(calls.some((c) => c.path === '/api/v1/connectors/mode')).toBe(true));
    // The answer has arrived and been rendered: still nothing in the bar.
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.queryByTestId('sandbox-chip')).toBeNull();
    expect(container.textContent).toBe('');
  });

  it('on a phone, only its icon, named by the same words', async () => {
    onPhone();
    answering(SANDBOX);
    await chip();
    const link = await screen.findByRole('link', { name: new RegExp(`^Sandbox: ${NOT_CHARGED}`) });
    expect(link.textContent).toBe('');
    expect(link.querySelector('svg')).toBeTruthy();
  });

  it('in Arabic', async () => {
    answering(SANDBOX);
    await chip('ae');
    const link = await screen.findByRole('link', { name: /^تجريبي: المدفوعات ليست حقيقية/ });
    expect(link.textContent).toBe('تجريبي');
  });

  it("asks nothing without 'view dashboard'", async () => {
    const calls = answering(SANDBOX);
    const { container } = await renderScreen(<SandboxChip />, { path: '/', url: '/', permissions: ['view recharges'] });
    await new Promise((r) => setTimeout(r, 50));
    expect(calls.filter((c) => c.path === '/api/v1/connectors/mode')).toEqual([]);
    expect(container.textContent).toBe('');
  });
});

describe('the dashboard line', () => {
  it('sandbox: nobody is charged, deliveries and SMS named, no link (the server configuration decides, no console page)', async () => {
    answering(SANDBOX);
    await renderScreen(<ConnectorModeLine />, { path: '/', url: '/', permissions: ['view dashboard', 'view company settings'] });
    expect((await screen.findByTestId('connector-mode-line')).textContent).toBe(
      'Payments: Sandbox — nobody is charged · Deliveries: Sandbox · SMS receipts: Sandbox',
    );
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('live: "Payments: Live" and no link', async () => {
    answering(LIVE);
    await renderScreen(<ConnectorModeLine />, { path: '/', url: '/', permissions: ['view dashboard'] });
    expect((await screen.findByTestId('connector-mode-line')).textContent).toBe('Payments: Live');
    expect(screen.queryByRole('link')).toBeNull();
  });

  it('mixed payments: some customers are not charged; live payments with no aggregator to deliver: "Deliveries: None"', async () => {
    answering({ payments: 'mixed', deliveries: 'mixed', sms: 'live' });
    await renderScreen(<ConnectorModeLine />, { path: '/', url: '/', permissions: ['view dashboard'] });
    expect((await screen.findByTestId('connector-mode-line')).textContent).toBe('Payments: Mixed — some customers are not charged · Deliveries: Mixed');
    cleanup();
    answering({ payments: 'live', deliveries: 'none', sms: 'live' });
    await renderScreen(<ConnectorModeLine />, { path: '/', url: '/', permissions: ['view dashboard'] });
    expect((await screen.findByTestId('connector-mode-line')).textContent).toBe('Payments: Live · Deliveries: None');
  });
});

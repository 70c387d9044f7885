import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { I18nContextProvider } from 'react-admin';
import { testI18nProvider } from '../test/i18n';
import { LOG_ACTIONS, LOG_SUBJECTS, LogSentence, subjectPath, type LogEntry } from './logSentence';

const entry = (over: Partial<LogEntry>): LogEntry => ({
  id: 1,
  actor: { id: 1, name: 'Admin User' },
  action: 'created',
  subject_type: null,
  subject_id: null,
  subject: null,
  description: null,
  before: null,
  after: null,
  ip: null,
  user_agent: null,
  created_at: '2026-11-23T10:00:00Z',
  ...over,
});

async function sentence(l: LogEntry, lng = 'en') {
  const i18n = await testI18nProvider(lng);
  const { container, unmount } = render(
    <MemoryRouter>
      <I18nContextProvider value={i18n}>
        <LogSentence entry={l} />
      </I18nContextProvider>
    </MemoryRouter>,
  );
  const text = container.textContent;
  const links = [...container.querySelectorAll('a')].map((a) => ({ text: a.textContent, href: a.getAttribute('href') }));
  unmount();
  return { text, links };
}

describe('log entries as sentences', () => {
  it('names who did what to what, with the subject linked to its page', async () => {
    const role = entry({ action: 'permissions_assigned', subject_type: 'role', subject_id: 4, subject: { type: 'role', id: 4, name: 'Editors' } });
    expect(await sentence(role)).toEqual({
      text: 'Admin User assigned permissions to role Editors',
      links: [{ text: 'role Editors', href: '/settings/roles/4' }],
    });
    const sale = entry({
      action: 'recharge_completed',
      actor: null,
      subject_type: 'recharge',
      subject_id: 9,
      subject: { type: 'recharge', id: 9, name: 'RC7K2' },
    });
    expect((await sentence(sale)).text).toBe('The system completed recharge RC7K2');
    expect((await sentence(sale)).links[0].href).toBe('/recharges/9');
  });

  it('writes Arabic and Somali sentences, not English copies', async () => {
    const role = entry({ action: 'permissions_assigned', subject_type: 'role', subject_id: 4, subject: { type: 'role', id: 4, name: 'Editors' } });
    expect((await sentence(role, 'ae')).text).toBe('أسند Admin User صلاحيات إلى الدور Editors');
    expect((await sentence(role, 'so')).text).toBe('Admin User wuxuu oggolaansho siiyay doorka Editors');
  });

  it('has a sentence for unknown codes, and no link to a record gone for good', async () => {
    const odd = await sentence(
      entry({ action: 'something_new', subject_type: 'user', subject_id: 3, subject: { type: 'user', id: 3, name: 'Amina', user_type: 'dealer' } }),
    );
    expect(odd.text).toBe('Admin User: something new user Amina');
    expect(odd.links).toEqual([{ text: 'user Amina', href: '/dealers/3' }]);
    const gone = await sentence(
      entry({ action: 'force_deleted', subject_type: 'banner', subject_id: 2, subject: { type: 'banner', id: 2, name: 'Weekend offer', gone: true } }),
    );
    expect(gone).toEqual({ text: 'Admin User deleted banner Weekend offer for good', links: [] });
    // An entry from before the API named subjects still reads as a sentence.
    expect((await sentence(entry({ action: 'updated', subject_type: 'banner', subject_id: 2, subject: undefined }))).text).toBe('Admin User updated banner #2');
  });

  it('says whose delivery routes changed (linked to them) and what an aggregator sync found, in each language', async () => {
    const routes = entry({ action: 'routes_changed', subject_type: 'provider', subject_id: 7, subject: { type: 'provider', id: 7, name: 'Hormuud' } });
    expect(await sentence(routes)).toEqual({
      text: 'Admin User changed the delivery routes of operator Hormuud',
      links: [{ text: 'operator Hormuud', href: '/internet-providers/7/routes' }],
    });
    const sync = entry({
      action: 'aggregator_catalogue_synced',
      actor: null,
      subject_type: 'aggregator',
      subject: { type: 'aggregator', id: null, name: null },
      description: 'dtone: 4 products, 1 new, 0 changed, 1 withdrawn',
      after: { aggregator: 'dtone', status: 'ok', error: null, products: 4, new: 1, changed: 0, withdrawn: 1 },
    });
    expect(await sentence(sync)).toEqual({
      text: 'The system synced the catalogue of DT One: 4 products, 1 new, 0 changed, 1 withdrawn',
      links: [{ text: 'DT One', href: '/aggregator-catalogue/dtone' }],
    });
    expect((await sentence(sync, 'ae')).text).toBe('زامَن النظام كتالوج DT One: 4 منتج، 1 جديد، 0 متغيّر، 1 مسحوب');
    // An entry without its summary reads its description.
    expect((await sentence({ ...sync, after: null }, 'so')).text).toBe(
      'Nidaamka wuxuu waafajiyay liiska DT One: 4 alaab, 1 cusub, 0 isbeddelay, 1 la joojiyay',
    );
  });

  it('every action the API writes and every subject type has its words in en, ae and so', () => {
    const source = readFileSync(resolve(__dirname, '../../../api/src/activity-log/activity-log.ts'), 'utf8');
    const written = [
      ...source.slice(source.indexOf('export type ActivityAction'), source.indexOf(';', source.indexOf('export type ActivityAction'))).matchAll(/'([a-z_]+)'/g),
    ].map((m) => m[1]);
    expect([...LOG_ACTIONS].sort()).toEqual([...new Set(written)].sort());
    const en = JSON.parse(readFileSync(resolve(__dirname, '../../../locales/en/admin.json'), 'utf8')).logs;
    for (const lng of ['en', 'ae', 'so']) {
      const logs = JSON.parse(readFileSync(resolve(__dirname, `../../../locales/${lng}/admin.json`), 'utf8')).logs;
      for (const a of LOG_ACTIONS) {
        expect(logs.actions[a], `${lng} logs.actions.${a}`).toBeTruthy();
        expect(logs.action_names[a], `${lng} logs.action_names.${a}`).toBeTruthy();
        if (lng !== 'en' && !['other'].includes(a)) expect(logs.action_names[a], `${lng} ${a} is an English copy`).not.toBe(en.action_names[a]);
      }
      for (const s of LOG_SUBJECTS) expect(logs.subjects[s] && logs.subject_types[s], `${lng} ${s}`).toBeTruthy();
    }
  });

  it('links subjects to their pages', () => {
    expect(subjectPath({ type: 'user', id: 5, name: 'A', user_type: 'admin' })).toBe('/admin/5');
    expect(subjectPath({ type: 'bundle', id: 7, name: 'B', provider_id: 1, category_id: 2 })).toBe('/internet-providers/1/categories/2/bundles/7');
    expect(subjectPath({ type: 'wallet', id: 3, name: 'Shop', dealer_id: 9 })).toBe('/wallet-transactions?dealer=9');
    expect(subjectPath({ type: 'settings', id: null, name: 'mail' })).toBe('/settings/mail');
    expect(subjectPath({ type: 'dealer_bundle', id: 3, name: 'x' })).toBeNull();
  });

  it("links a day's close and its differences to the day, and a float's alert to the floats", async () => {
    const closed = entry({
      action: 'daily_close_closed',
      subject_type: 'daily_close',
      subject_id: 3,
      subject: { type: 'daily_close', id: 3, name: '2026-11-26' },
    });
    expect(await sentence(closed)).toEqual({
      text: 'Admin User closed the day 2026-11-26',
      links: [{ text: 'the day 2026-11-26', href: '/reports/daily-close/2026-11-26' }],
    });
    const handled = entry({
      action: 'daily_close_difference_resolved',
      subject_type: 'daily_close_difference',
      subject_id: 8,
      subject: { type: 'daily_close_difference', id: 8, name: '2026-11-26 RC-1001' },
    });
    expect((await sentence(handled)).links[0].href).toBe('/reports/daily-close/2026-11-26');
    const threshold = entry({
      action: 'aggregator_float_threshold_changed',
      subject_type: 'aggregator',
      subject: { type: 'aggregator', id: null, name: null },
      description: 'float alert threshold of reloadly',
      after: { aggregator: 'reloadly', threshold: '50.00' },
    });
    expect(await sentence(threshold)).toEqual({
      text: 'Admin User changed the float alert threshold of Reloadly',
      links: [{ text: 'Reloadly', href: '/aggregators' }],
    });
  });
});

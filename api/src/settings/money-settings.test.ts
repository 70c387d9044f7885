import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, FORBIDDEN, VALIDATION, type Harness } from '../../../tests/api/harness.ts';

/** GET|PUT /settings/money: the ceilings on one operation and on one balance (settings group `money`). */
let h: Harness;
let root: string;

beforeAll(async () => {
  h = await createHarness();
  root = await h.adminToken();
});
afterAll(() => h.close());

describe('money settings', () => {
  it('start from the defaults', async () => {
    const res = await h.http().get('/api/v1/settings/money').set(bearer(root));
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ max_operation: '100000.00', max_balance: '10000000.00', max_allowed: '1000000000000.00', currency: 'USD' });
  });

  it('check every field at once, in the caller’s language', async () => {
    const bad = await h.http().put('/api/v1/settings/money').set(bearer(root)).send({ max_operation: '0', max_balance: '1000000000000.01' });
    expect(bad.body).toEqual({
      success: false,
      code: 'validation.failed',
      errors_detail: expect.any(Array),
      message: VALIDATION,
      errors: {
        max_operation: ['Enter an amount greater than zero with at most two decimals, such as 12.50'],
        max_balance: ['The most allowed is 1,000,000,000,000.00.'],
      },
    });
    const so = await h.http().put('/api/v1/settings/money?lng=so').set(bearer(root)).send({ max_operation: '5', max_balance: '1000000000000.01' });
    expect(so.body.errors).toEqual({ max_balance: ['Ugu badnaan waa 1,000,000,000,000.00.'] });
    const ae = await h.http().put('/api/v1/settings/money?lng=ae').set(bearer(root)).send({ max_operation: '5', max_balance: '1000000000000.01' });
    expect(ae.body.errors).toEqual({ max_balance: ['أعلى قيمة مسموح بها هي 1,000,000,000,000.00.'] });
    const crossed = await h.http().put('/api/v1/settings/money').set(bearer(root)).send({ max_operation: '200', max_balance: '100' });
    expect(crossed.status).toBe(422);
    expect(crossed.body.errors).toEqual({ max_operation: ['The most one operation may move cannot be more than the balance ceiling.'] });
    expect(await h.knex('settings').where({ group: 'money' })).toEqual([]);
  });

  it('save, log the change with before and after, and log nothing when nothing changed', async () => {
    const saved = await h.http().put('/api/v1/settings/money').set(bearer(root)).send({ max_operation: '2500.50', max_balance: 50000 });
    expect(saved.status).toBe(200);
    expect(saved.body.message).toBe('Money ceilings saved');
    expect(saved.body.data).toMatchObject({ max_operation: '2500.50', max_balance: '50000.00' });
    expect((await h.http().get('/api/v1/settings/money').set(bearer(root))).body.data).toMatchObject({ max_operation: '2500.50', max_balance: '50000.00' });
    const stored = await h.knex('settings').where({ group: 'money' }).orderBy('key').select('key', 'value');
    expect(stored).toEqual([
      { key: 'max_balance', value: '5000000' },
      { key: 'max_operation', value: '250050' },
    ]);
    const logs = await h.knex('activity_log').where({ subject_type: 'settings', description: 'money' });
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0].before)).toEqual({ max_operation: '100000.00', max_balance: '10000000.00' });
    expect(JSON.parse(logs[0].after)).toEqual({ max_operation: '2500.50', max_balance: '50000.00' });
    await h.http().put('/api/v1/settings/money').set(bearer(root)).send({ max_operation: '2500.5', max_balance: '50000' });
    expect(await h.knex('activity_log').where({ subject_type: 'settings', description: 'money' })).toHaveLength(1);
    const ae = await h.http().put('/api/v1/settings/money?lng=ae').set(bearer(root)).send({ max_operation: '2500.5', max_balance: '50000' });
    expect(ae.body.message).toBe('تم حفظ الحدود القصوى للمبالغ');
  });

  it('need the company settings permissions', async () => {
    const viewer = await h.userWith(['view company settings']);
    expect((await h.http().get('/api/v1/settings/money').set(bearer(viewer.token))).status).toBe(200);
    const put = await h.http().put('/api/v1/settings/money').set(bearer(viewer.token)).send({ max_operation: 1, max_balance: 1 });
    expect(put.status).toBe(403);
    expect(put.body).toEqual(FORBIDDEN);
    const editor = await h.userWith(['update company settings']);
    expect((await h.http().put('/api/v1/settings/money').set(bearer(editor.token)).send({ max_operation: 3000, max_balance: 60000 })).status).toBe(200);
    expect((await h.http().get('/api/v1/settings/money').set(bearer(editor.token))).status).toBe(403);
    const dealerId = await h.insertUser({ name: 'Dealer', email: 'money-dealer@test.example', user_type: 'dealer', dealer_code: 'MNYD' }, 'dealer');
    expect(dealerId).toBeGreaterThan(0);
    const dealer = await h.login('money-dealer@test.example');
    expect((await h.http().get('/api/v1/settings/money').set(bearer(dealer))).status).toBe(403);
    expect((await h.http().get('/api/v1/settings/money')).status).toBe(401);
  });
});

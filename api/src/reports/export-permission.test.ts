import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, bearer, type Harness } from '../../../tests/api/harness.ts';

/**
 * 'export reports' is what lets a reader download a report: every report's CSV (and the daily
 * close's CSV and PDF) answers 403 to a role that may read the report but not export it, and the
 * file to one that may.
 */
let h: Harness;
afterAll(() => h.close());

const READ = ['view reports', 'view bundles prices', 'view dealer profit report', 'view daily close'];
// Yesterday, in UTC: a day the close can export (today's date in any zone is at most a day ahead).
const day = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
const range = `from=${day}&to=${day}`;
const exports = [
  `/reports/sales?${range}&format=csv`,
  `/reports/margins?${range}&format=csv`,
  `/reports/dealer-profit?${range}&format=csv`,
  `/daily-close/${day}/export?format=csv`,
  `/daily-close/${day}/export?format=pdf`,
];

let reader: string;
let exporter: string;
beforeAll(async () => {
  h = await createHarness();
  reader = (await h.userWith(READ)).token;
  exporter = (await h.userWith([...READ, 'export reports'])).token;
});

const get = (path: string, token: string) => h.http().get(`/api/v1${path}`).set(bearer(token));

describe("'export reports'", () => {
  it('without it, each export is refused with the usual 403 envelope, while the reports still read', async () => {
    for (const path of exports) {
      const res = await get(path, reader);
      expect(res.status, path).toBe(403);
      expect(res.body, path).toMatchObject({ success: false, code: 'auth.forbidden', message: expect.any(String) });
    }
    for (const path of [`/reports/sales?${range}`, `/reports/margins?${range}`, `/reports/dealer-profit?${range}`, `/daily-close/${day}`]) {
      expect((await get(path, reader)).status, path).toBe(200);
    }
  });

  it('with it, each export answers its file', async () => {
    for (const path of exports) {
      const res = await get(path, exporter);
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type'], path).toMatch(path.endsWith('pdf') ? /^application\/pdf/ : /^text\/csv/);
    }
  });

  it("a dealer's role holds it: a dealer downloads its own profit", async () => {
    const email = 'exporting-dealer@test.example';
    await h.insertUser({ name: 'Exporting dealer', email, user_type: 'dealer', dealer_code: 'EXPD' }, 'dealer');
    const res = await get(`/reports/dealer-profit?${range}&format=csv`, await h.login(email));
    expect(res.status).toBe(200);
  });
});

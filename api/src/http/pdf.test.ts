import { describe, expect, it } from 'vitest';
import { renderPdf, splitRuns, type PdfSpec } from './pdf.ts';

/** Page count from the page tree (pdfkit writes one /Pages node with /Count). */
function pageCount(pdf: Buffer): number {
  const m = /\/Type \/Pages\s*\/Count (\d+)/.exec(pdf.toString('latin1'));
  return m ? Number(m[1]) : 0;
}

function spec(rows: number, rtl = false): PdfSpec {
  return {
    title: rtl ? 'كشف حساب المحفظة' : 'Wallet statement',
    subtitle: 'Hargeisa Telecom · 2026-11-01 – 2026-11-30',
    meta: [
      [rtl ? 'الوكيل' : 'Dealer', rtl ? 'Hodan Shop (D0042)' : 'متجر هودن (D0042)'],
      [rtl ? 'الرصيد الافتتاحي' : 'Opening balance', '120.00 USD'],
    ],
    sections: [
      {
        title: rtl ? 'الحركات' : 'Lines',
        columns: [
          { label: 'Date', width: 1.4 },
          { label: rtl ? 'النوع' : 'Kind', width: 1.4 },
          { label: 'Amount', align: 'right' },
          { label: 'Note', width: 2 },
        ],
        rows: Array.from({ length: rows }, (_, i) => [
          `2026-11-${String((i % 28) + 1).padStart(2, '0')} 10:00`,
          rtl ? 'بيع باقة' : 'Sale',
          `-${(i + 1).toFixed(2)}`,
          i % 7 === 0 ? 'A long note that must wrap over more than one line of its narrow cell in the table' : `ref R${i}`,
        ]),
        totals: ['', rtl ? 'المجموع' : 'Total', '-1.00', ''],
      },
    ],
    footer: 'Generated at 2026-11-27 12:00',
    rtl,
  };
}

describe('renderPdf', () => {
  it('renders an A4 document that starts with %PDF and breaks a long table over numbered pages', async () => {
    const short = await renderPdf({ ...spec(5), meta: [['Dealer', 'Hodan Shop (D0042)']] });
    expect(short.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pageCount(short)).toBe(1);
    expect(short.toString('latin1')).toContain('/MediaBox [0 0 595.28 841.89]');
    // Latin only: no Arabic font is embedded.
    expect(short.toString('latin1')).not.toMatch(/NotoSansArabic/);

    const long = await renderPdf({ ...spec(200), meta: [] });
    const pages = pageCount(long);
    expect(pages).toBeGreaterThan(3);
    expect(long.toString('latin1').match(/\/Type \/Page\b/g)?.length).toBe(pages);
  });

  it('embeds a font with Arabic glyphs for Arabic text, left-to-right or right-to-left', async () => {
    for (const rtl of [true, false]) {
      const pdf = await renderPdf(spec(60, rtl));
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      expect(pageCount(pdf)).toBeGreaterThanOrEqual(2);
      expect(pdf.toString('latin1')).toMatch(/\/BaseFont \/[A-Z]{6}\+NotoSansArabic/);
    }
  });

  it('renders an empty section and no sections', async () => {
    const pdf = await renderPdf({ title: 'Empty', sections: [{ title: 'Lines', columns: [{ label: 'A' }], rows: [], empty: 'Nothing in this period' }] });
    expect(pageCount(pdf)).toBe(1);
    expect(pageCount(await renderPdf({ title: 'Nothing', sections: [] }))).toBe(1);
  });

  it('cuts a line into runs by script, numbers staying left-to-right inside Arabic', () => {
    expect(splitRuns('Sale 12.50', false)).toEqual([{ text: 'Sale 12.50', arabicFont: false, rtl: false }]);
    expect(splitRuns('بيع باقة 12.50', true)).toEqual([
      { text: 'بيع باقة ', arabicFont: true, rtl: true },
      { text: '12.50', arabicFont: false, rtl: false },
    ]);
    expect(splitRuns('Hodan عبد الله 7', false).map((r) => [r.text, r.rtl])).toEqual([
      ['Hodan ', false],
      ['عبد الله', true],
      [' 7', false],
    ]);
  });
});

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Response } from 'express';
import PDFDocument from 'pdfkit';

/**
 * Printable documents (statements, the daily close): A4 pages, the title on every page, tables
 * that break across pages with their header repeated, "1 / 3" page numbers.
 *
 * Arabic is drawn with Noto Sans Arabic (shaped by fontkit inside pdfkit: joining forms and
 * ligatures) and everything else with Helvetica, which has no Arabic glyphs; the Arabic font
 * subset the package ships has no Latin letters or ASCII digits, so each line is cut into runs by
 * script and every run drawn in its own font. Lines are ordered with a two-level bidi (an RTL or
 * LTR paragraph, islands of the other direction), enough for labels, names, amounts and notes.
 */

export interface PdfColumn {
  label: string;
  /** Logical: 'left' is the line's start (the right edge in an RTL document), 'right' its end (amounts). */
  align?: 'left' | 'right';
  /** Relative weight of the column's width (default 1). */
  width?: number;
}

export interface PdfSection {
  title: string;
  columns: PdfColumn[];
  rows: string[][];
  /** A last row in bold under a rule (one cell per column; '' for none). */
  totals?: string[];
  /** Shown instead of an empty table. */
  empty?: string;
}

export interface PdfSpec {
  title: string;
  subtitle?: string;
  /** Label/value pairs under the first page's header (dealer, period, opening balance ...). */
  meta?: [label: string, value: string][];
  sections: PdfSection[];
  /** A line at the foot of every page, beside the page number (e.g. "Generated at ..."). */
  footer?: string;
  /** Right-to-left layout (Arabic): columns, meta and alignment mirrored. */
  rtl?: boolean;
}

const MARGIN = 40;
const BODY_SIZE = 8.5;
const CELL_PAD = 3;
const LINE_GAP = 2;
const MAX_CELL_LINES = 4;

const fontDir = (() => {
  // The package's exports map only its CSS; its LICENSE sits beside the files folder.
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@fontsource/noto-sans-arabic/LICENSE')), 'files');
})();
let arabicFonts: { regular: Buffer; bold: Buffer } | null = null;
function loadArabicFonts() {
  arabicFonts ??= {
    regular: readFileSync(path.join(fontDir, 'noto-sans-arabic-arabic-400-normal.woff')),
    bold: readFileSync(path.join(fontDir, 'noto-sans-arabic-arabic-700-normal.woff')),
  };
  return arabicFonts;
}

type Doc = InstanceType<typeof PDFDocument>;
type Weight = 'regular' | 'bold';
/** R: an Arabic letter; AN: an Arabic digit; L: any other letter or digit; N: neutral (space, punctuation). */
type CharClass = 'R' | 'AN' | 'L' | 'N';
interface Run {
  text: string;
  arabicFont: boolean;
  rtl: boolean;
}

const ARABIC_DIGIT = /[\u0660-\u0669\u06F0-\u06F9]/;
const ARABIC = /[\u0600-\u06FF\u0750-\u077F\u0870-\u08FF\uFB50-\uFDFF\uFE70-\uFEFF]/;
const STRONG_OR_NUMBER = /[\p{L}\p{N}]/u;

function classOf(ch: string): CharClass {
  if (ARABIC_DIGIT.test(ch)) return 'AN';
  if (ARABIC.test(ch) && STRONG_OR_NUMBER.test(ch)) return 'R';
  if (STRONG_OR_NUMBER.test(ch)) return 'L';
  return 'N';
}

/** Cuts one line into runs of one font and one direction, in logical order. */
export function splitRuns(text: string, rtlParagraph: boolean): Run[] {
  // Most cells (dates, amounts, Latin names) are one left-to-right Helvetica run.
  if (!rtlParagraph && !ARABIC.test(text)) return text ? [{ text, arabicFont: false, rtl: false }] : [];
  const chars = Array.from(text);
  const classes = chars.map(classOf);
  // A pair of brackets goes with what it encloses when that is of one direction ("(Africa/Mogadishu)"
  // inside Arabic stays whole), as the bidi algorithm's bracket rule does.
  const paired = new Map<number, 'L' | 'R'>();
  const open: number[] = [];
  chars.forEach((ch, i) => {
    if ('([{'.includes(ch)) open.push(i);
    else if (')]}'.includes(ch) && open.length) {
      const start = open.pop()!;
      const inside = classes.slice(start + 1, i).filter((c) => c !== 'N');
      const ltr = inside.some((c) => c !== 'R');
      const rtl = inside.some((c) => c === 'R');
      if (ltr !== rtl) for (const at of [start, i]) paired.set(at, ltr ? 'L' : 'R');
    }
  });
  // A neutral takes the direction of the strong characters on both sides when they agree, else the
  // paragraph's. The nearest strong character on each side, in one pass each way.
  const side = (c: CharClass): 'L' | 'R' | undefined => (c === 'N' ? undefined : c === 'R' ? 'R' : 'L');
  const before: ('L' | 'R' | undefined)[] = [];
  const after: ('L' | 'R' | undefined)[] = [];
  for (let i = 0, last: 'L' | 'R' | undefined; i < classes.length; i++) {
    before[i] = last;
    last = side(classes[i]) ?? last;
  }
  for (let i = classes.length - 1, next: 'L' | 'R' | undefined; i >= 0; i--) {
    after[i] = next;
    next = side(classes[i]) ?? next;
  }
  const dirs = classes.map((c, i) => {
    if (paired.has(i)) return paired.get(i)!;
    if (c !== 'N') return side(c)!;
    if (before[i] && before[i] === after[i]) return before[i]!;
    return rtlParagraph ? 'R' : 'L';
  });
  const runs: Run[] = [];
  chars.forEach((ch, i) => {
    const rtl = dirs[i] === 'R';
    const cls = classes[i];
    // A neutral inside Arabic is drawn in the Arabic font when it has the glyph (spaces, Arabic punctuation).
    const arabicFont = cls === 'R' || cls === 'AN' || (cls === 'N' && (ARABIC.test(ch) || (rtl && /\s/.test(ch))));
    const last = runs.at(-1);
    if (last && last.rtl === rtl && last.arabicFont === arabicFont) last.text += ch;
    else runs.push({ text: ch, arabicFont, rtl });
  });
  return runs;
}

/** The runs of a line in the order they are drawn, left to right. */
function visualOrder(runs: Run[], rtlParagraph: boolean): Run[] {
  // Consecutive runs of one direction form a segment; segments go in the paragraph's direction, and
  // inside an RTL segment the runs go right to left (fontkit already reverses the glyphs of each run).
  const segments: Run[][] = [];
  for (const run of runs) {
    const last = segments.at(-1);
    if (last && last[0].rtl === run.rtl) last.push(run);
    else segments.push([run]);
  }
  const ordered = rtlParagraph ? segments.reverse() : segments;
  return ordered.flatMap((s) => (s[0].rtl ? [...s].reverse() : s));
}

class Writer {
  readonly doc: Doc;
  private readonly fonts: { regular: Buffer; bold: Buffer } | null;
  readonly left = MARGIN;
  readonly right: number;
  readonly bottom: number;
  y = MARGIN;

  constructor(private readonly spec: PdfSpec) {
    this.doc = new PDFDocument({
      size: 'A4',
      margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
      bufferPages: true,
      autoFirstPage: true,
      info: { Title: spec.title, Subject: spec.subtitle ?? '', Creator: 'bundle-reseller' },
    });
    this.right = this.doc.page.width - MARGIN;
    this.bottom = this.doc.page.height - MARGIN - 18; // room for the page number line
    this.fonts = needsArabic(spec) ? loadArabicFonts() : null;
    if (this.fonts) {
      this.doc.registerFont('ar', this.fonts.regular);
      this.doc.registerFont('ar-bold', this.fonts.bold);
    }
  }

  get rtl() {
    return !!this.spec.rtl;
  }

  private useFont(arabic: boolean, weight: Weight, size: number) {
    const name = arabic && this.fonts ? (weight === 'bold' ? 'ar-bold' : 'ar') : weight === 'bold' ? 'Helvetica-Bold' : 'Helvetica';
    this.doc.font(name).fontSize(size);
  }

  /**
   * A line's own direction, from its first letter or digit (a bidi paragraph's rule, digits
   * counted as left-to-right so "-1.00" keeps its sign in front); the document's when it has none.
   */
  private lineRtl(text: string): boolean {
    for (const ch of text) {
      const c = classOf(ch);
      if (c === 'R') return true;
      if (c === 'L' || c === 'AN') return false;
    }
    return this.rtl;
  }

  /** Widths measured, by weight, size and text: a statement repeats its kinds, words and amounts. */
  private readonly widths = new Map<string, number>();

  width(text: string, weight: Weight, size: number): number {
    const key = `${weight}|${size}|${text}`;
    const known = this.widths.get(key);
    if (known !== undefined) return known;
    const measured = splitRuns(text, this.lineRtl(text)).reduce((sum, run) => {
      this.useFont(run.arabicFont, weight, size);
      return sum + this.doc.widthOfString(run.text);
    }, 0);
    if (this.widths.size > 50_000) this.widths.clear();
    this.widths.set(key, measured);
    return measured;
  }

  /** One line, never wrapped by pdfkit (which would also add pages on its own). */
  line(text: string, x: number, y: number, boxWidth: number, align: 'start' | 'end' | 'center', weight: Weight, size: number) {
    const rtl = this.lineRtl(text);
    const runs = visualOrder(splitRuns(text, rtl), rtl);
    const total = this.width(text, weight, size);
    const atRight = (align === 'end') !== this.rtl;
    let cx = align === 'center' ? x + (boxWidth - total) / 2 : atRight ? x + boxWidth - total : x;
    for (const run of runs) {
      this.useFont(run.arabicFont, weight, size);
      // Word by word, spaces as moves: pdfkit writes an embedded font's space with no width in the
      // PDF when it shares a text command with shaped Arabic glyphs, gluing the words together.
      const tokens = run.text.split(/(\s+)/).filter(Boolean);
      for (const token of run.rtl ? tokens.reverse() : tokens) {
        // On a common baseline: the Arabic font's taller line box would otherwise sit its words lower.
        if (!/^\s+$/.test(token)) this.doc.text(token, cx, y + size * 0.9, { lineBreak: false, baseline: 'alphabetic' });
        cx += this.doc.widthOfString(token);
      }
    }
  }

  /** Word-wraps text to a width, at most `max` lines (the last one cut with an ellipsis). */
  wrap(text: string, boxWidth: number, weight: Weight, size: number, max = MAX_CELL_LINES): string[] {
    const lines: string[] = [];
    for (const paragraph of text.split(/\r?\n/)) {
      let current = '';
      for (const word of paragraph.split(/\s+/).filter(Boolean)) {
        const candidate = current ? `${current} ${word}` : word;
        if (!current || this.width(candidate, weight, size) <= boxWidth) {
          current = candidate;
          continue;
        }
        lines.push(current);
        current = word;
      }
      lines.push(current);
    }
    const kept = lines.slice(0, max).map((l) => this.fit(l, boxWidth, weight, size));
    if (lines.length > max) kept[max - 1] = this.fit(`${kept[max - 1]}…`, boxWidth, weight, size, true);
    return kept;
  }

  /** Cuts a line (one long word) to the width, ending with an ellipsis. */
  private fit(line: string, boxWidth: number, weight: Weight, size: number, force = false): string {
    if (!force && this.width(line, weight, size) <= boxWidth) return line;
    let chars = Array.from(line.replace(/…$/, ''));
    while (chars.length > 1 && this.width(`${chars.join('')}…`, weight, size) > boxWidth) chars = chars.slice(0, -1);
    return `${chars.join('')}…`;
  }

  lineHeight(size: number) {
    return size * 1.2 + LINE_GAP;
  }

  /** The title (and subtitle) at the top of a page, under a rule. */
  pageHeader() {
    this.y = MARGIN;
    const w = this.right - this.left;
    this.line(this.spec.title, this.left, this.y, w, 'start', 'bold', 15);
    this.y += this.lineHeight(15) + 2;
    if (this.spec.subtitle) {
      this.doc.fillColor('#444444');
      this.line(this.spec.subtitle, this.left, this.y, w, 'start', 'regular', 10);
      this.doc.fillColor('black');
      this.y += this.lineHeight(10);
    }
    this.y += 2;
    this.doc.moveTo(this.left, this.y).lineTo(this.right, this.y).lineWidth(0.8).strokeColor('#999999').stroke();
    this.y += 10;
  }

  newPage() {
    this.doc.addPage();
    this.pageHeader();
  }

  ensure(height: number): boolean {
    if (this.y + height <= this.bottom) return false;
    this.newPage();
    return true;
  }

  meta(pairs: [string, string][]) {
    if (!pairs.length) return;
    const w = this.right - this.left;
    const labelWidth = Math.min(160, Math.max(...pairs.map(([label]) => this.width(label, 'bold', 9.5))) + 12);
    const valueWidth = w - labelWidth;
    for (const [label, value] of pairs) {
      const lines = this.wrap(value, valueWidth, 'regular', 9.5, 3);
      const h = lines.length * this.lineHeight(9.5);
      this.ensure(h);
      const labelX = this.rtl ? this.right - labelWidth : this.left;
      const valueX = this.rtl ? this.left : this.left + labelWidth;
      this.line(label, labelX, this.y, labelWidth, 'start', 'bold', 9.5);
      lines.forEach((l, i) => this.line(l, valueX, this.y + i * this.lineHeight(9.5), valueWidth, 'start', 'regular', 9.5));
      this.y += h;
    }
    this.y += 10;
  }

  /** x positions and widths of the columns, mirrored in an RTL document. */
  private layout(columns: PdfColumn[]) {
    const total = columns.reduce((s, c) => s + (c.width && c.width > 0 ? c.width : 1), 0);
    const w = this.right - this.left;
    let x = this.rtl ? this.right : this.left;
    return columns.map((c) => {
      const cw = (w * (c.width && c.width > 0 ? c.width : 1)) / total;
      const cx = this.rtl ? x - cw : x;
      x = this.rtl ? x - cw : x + cw;
      return { x: cx, w: cw, align: c.align === 'right' ? ('end' as const) : ('start' as const) };
    });
  }

  private tableHeader(section: PdfSection, cols: ReturnType<Writer['layout']>) {
    const cells = section.columns.map((c, i) => this.wrap(c.label, cols[i].w - 2 * CELL_PAD, 'bold', BODY_SIZE, 2));
    const h = Math.max(...cells.map((l) => l.length)) * this.lineHeight(BODY_SIZE) + 2 * CELL_PAD;
    this.doc.rect(this.left, this.y, this.right - this.left, h).fill('#e8e8e8');
    this.doc.fillColor('black');
    cells.forEach((lines, i) =>
      lines.forEach((l, j) =>
        this.line(l, cols[i].x + CELL_PAD, this.y + CELL_PAD + j * this.lineHeight(BODY_SIZE), cols[i].w - 2 * CELL_PAD, cols[i].align, 'bold', BODY_SIZE),
      ),
    );
    this.y += h;
  }

  async section(section: PdfSection, first: boolean) {
    const cols = this.layout(section.columns);
    const titleHeight = this.lineHeight(11) + 4;
    const headerHeight = this.lineHeight(BODY_SIZE) * 2 + 2 * CELL_PAD;
    if (!first) this.y += 8;
    // Never leave a section title alone at the foot of a page.
    this.ensure(titleHeight + headerHeight + this.lineHeight(BODY_SIZE) + 2 * CELL_PAD);
    this.line(section.title, this.left, this.y, this.right - this.left, 'start', 'bold', 11);
    this.y += titleHeight;
    this.tableHeader(section, cols);
    if (!section.rows.length && section.empty) {
      this.doc.fillColor('#666666');
      this.line(section.empty, this.left + CELL_PAD, this.y + CELL_PAD, this.right - this.left - 2 * CELL_PAD, 'start', 'regular', BODY_SIZE);
      this.doc.fillColor('black');
      this.y += this.lineHeight(BODY_SIZE) + 2 * CELL_PAD;
    }
    for (const [r, row] of section.rows.entries()) {
      this.row(section, cols, row, 'regular', r % 2 === 1);
      // A long table lets the server answer other requests meanwhile.
      if (r % 200 === 199) await new Promise((resolve) => setImmediate(resolve));
    }
    if (section.totals) {
      this.row(section, cols, section.totals, 'bold', false, true);
    }
  }

  private row(section: PdfSection, cols: ReturnType<Writer['layout']>, row: string[], weight: Weight, shaded: boolean, totals = false) {
    const cells = cols.map((c, i) => this.wrap(row[i] ?? '', c.w - 2 * CELL_PAD, weight, BODY_SIZE));
    const h = Math.max(1, ...cells.map((l) => l.length)) * this.lineHeight(BODY_SIZE) + 2 * CELL_PAD;
    if (this.ensure(h)) {
      // A table that goes on over the page repeats its title and header.
      this.line(section.title, this.left, this.y, this.right - this.left, 'start', 'bold', 11);
      this.y += this.lineHeight(11) + 4;
      this.tableHeader(section, cols);
    }
    if (shaded) {
      this.doc.rect(this.left, this.y, this.right - this.left, h).fill('#f6f6f6');
      this.doc.fillColor('black');
    }
    if (totals) this.doc.moveTo(this.left, this.y).lineTo(this.right, this.y).lineWidth(0.8).strokeColor('#333333').stroke();
    cells.forEach((lines, i) =>
      lines.forEach((l, j) =>
        this.line(l, cols[i].x + CELL_PAD, this.y + CELL_PAD + j * this.lineHeight(BODY_SIZE), cols[i].w - 2 * CELL_PAD, cols[i].align, weight, BODY_SIZE),
      ),
    );
    this.y += h;
  }

  /** Page numbers and the footer on every page, once all pages exist. */
  footers() {
    const { start, count } = this.doc.bufferedPageRange();
    const w = this.right - this.left;
    for (let i = start; i < start + count; i++) {
      this.doc.switchToPage(i);
      const y = this.doc.page.height - MARGIN - 8;
      this.doc.fillColor('#555555');
      if (this.spec.footer) this.line(this.spec.footer, this.left, y, w - 60, 'start', 'regular', 8);
      // "1 / 3" stays left-to-right in any language.
      const number = `${i - start + 1} / ${count}`;
      this.doc.font('Helvetica').fontSize(8);
      const nx = this.rtl ? this.left : this.right - this.doc.widthOfString(number);
      this.doc.text(number, nx, y + 8 * 0.9, { lineBreak: false, baseline: 'alphabetic' });
      this.doc.fillColor('black');
    }
  }
}

function needsArabic(spec: PdfSpec): boolean {
  if (spec.rtl) return true;
  const texts = [spec.title, spec.subtitle ?? '', spec.footer ?? '', ...(spec.meta ?? []).flat()];
  for (const s of spec.sections) texts.push(s.title, s.empty ?? '', ...s.columns.map((c) => c.label), ...(s.totals ?? []), ...s.rows.flat());
  return texts.some((t) => ARABIC.test(t));
}

/** Renders a document to a PDF file's bytes. */
export async function renderPdf(spec: PdfSpec): Promise<Buffer> {
  const w = new Writer(spec);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    w.doc.on('data', (c: Buffer) => chunks.push(c));
    w.doc.on('end', () => resolve(Buffer.concat(chunks)));
    w.doc.on('error', reject);
  });
  w.pageHeader();
  w.meta(spec.meta ?? []);
  for (const [i, s] of spec.sections.entries()) await w.section(s, i === 0);
  w.footers();
  w.doc.end();
  return done;
}

/** Sends PDF bytes as a download. */
export function sendPdf(res: Response, filename: string, pdf: Buffer): void {
  res.setHeader('Content-Type', 'application/pdf');
  res.setHeader('Content-Disposition', `attachment; filename="${filename.replace(/["\\\r\n]/g, '')}"`);
  res.setHeader('Content-Length', String(pdf.length));
  res.status(200).end(pdf);
}

import fs from 'node:fs';

/**
 * One figure of `npm run bench` (tests/bench/all.bench.ts): what was measured, its value, the
 * reference it was measured beside in the same run (the health check, a bare route, a budget),
 * the goal, and whether it was met (null: no goal). Each benchmark script prints its own table
 * and, when run by all.bench.ts (BENCH_RESULTS names a file), also appends its figures there.
 */
export interface BenchFigure {
  measure: string;
  value: string;
  reference: string;
  goal: string;
  met: boolean | null;
}

export function recordFigure(figure: BenchFigure): void {
  const file = process.env.BENCH_RESULTS;
  if (file) fs.appendFileSync(file, `${JSON.stringify(figure)}\n`);
}

export const percent = (part: number, whole: number) => (whole > 0 ? (100 * part) / whole : 0);

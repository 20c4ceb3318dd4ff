/**
 * A benchmark's result, as collected by bench/run-all.ts into docs/BENCHMARKS.md.
 * Each bench module exports `run(opts: BenchOptions): Promise<BenchResult>`.
 */
export interface Figure {
  metric: string;
  value: number | string;
  unit?: string;
  /** Human-readable target, e.g. "≤ 20 ms". */
  target?: string;
  pass?: boolean;
}

export interface BenchResult {
  name: string;
  /** Which issue / capability it measures. */
  about: string;
  figures: Figure[];
  /** How it was measured, caveats. */
  notes: string[];
  /** Set when data was missing (e.g. ../shared/eval absent): figures empty, says why. */
  skipped?: string;
  /** ISO time of the run that produced it (set by bench/run-all.ts). */
  measuredAt?: string;
}

export interface BenchOptions {
  /** Offline model folder (built by `npm run model:offline`). */
  modelPath: string;
  /** ../shared/eval or ACTIVE_BRAIN_EVAL_DIR; null when absent. */
  evalDir: string | null;
  /** Scratch dir for stores and state. */
  workDir: string;
  /** Smaller sizes for a quick run. */
  quick: boolean;
}

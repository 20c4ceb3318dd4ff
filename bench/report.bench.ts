/**
 * The HTML report's size and render time (issue 13 target: a report for 100 sessions is
 * ≤ 2 MB and Chromium renders it in ≤ 2 s). The page is built by the product's own renderer
 * (ops/report-html.ts) from a model of 100 sessions with a realistic mix of decisions (a
 * prompt every ~40 tool steps, errors, offers, silences; 1,000 decisions a session), through
 * the selection the live report and backtest apply (ops/report-model.ts boundSessions). Render time: headless Chromium
 * (`--dump-dom`, which returns once the page has loaded) minus the same run on a one-line
 * page, side by side, median of 5. Skipped with a note when Chromium is absent.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { renderReport, type ReportMark, type ReportModel } from '../ops/report-html.js';
import { boundSessions, shownOffers } from '../ops/report-model.js';
import { prng } from './synthetic.js';

const SESSIONS = 100;
/** Decisions per session before the report's own selection (a long agentic session). */
const STEPS_PER_SESSION = 1000;
const RUNS = 5;
const TARGET_BYTES = 2 * 1024 * 1024;
const TARGET_RENDER_MS = 2000;
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => existsSync(p)) ?? null;

function model(): ReportModel {
  const rand = prng(13);
  const sessions = Array.from({ length: SESSIONS }, (_, s) => {
    const marks: ReportMark[] = [];
    for (let i = 0; i < STEPS_PER_SESSION; i++) {
      const prompt = i % 40 === 0;
      const err = !prompt && rand() < 0.05; // ~4 of 100 tool calls fail in the real transcripts
      const offer = (prompt && rand() < 0.05) || (err && rand() < 0.2);
      marks.push({
        channel: prompt ? 'prompt' : 'tool',
        seq: prompt ? i / 40 : i,
        at: Date.UTC(2026, 10, 1) + s * 86_400_000 + i * 20_000,
        driftZ: prompt ? (rand() - 0.5) * 8 : null,
        stallZ: prompt ? (rand() - 0.5) * 6 : null,
        toolError: err,
        trigger: offer ? (prompt ? 'drift' : 'error') : null,
        outcome: offer ? 'would-fire' : 'silent',
        reason: offer ? null : prompt ? 'no-trigger' : err ? 'first-seen-error' : null,
        offer: offer ? { type: prompt ? 'analogous' : 'past-fix', confidence: 0.8, handle: `sessions/-home-user-projects-app/${s}-${i}.jsonl#${i}`, reason: 'fixed by git push --set-upstream origin <branch> — same "the current branch … has no upstream branch." error in session 258c… (2026-02-11)' } : null,
      });
    }
    return { id: `session-${s}`, label: `session ${s}`, marks };
  });
  return {
    title: 'active-brain — benchmark report', source: 'synthetic: 100 sessions', generatedAt: Date.now(),
    gates: [{ name: 'prompt.hook-speed', pass: true, figure: 'p50 31 ms' }], labels: [{ scope: 'all', useful: 40, total: 55, low: 0.6, high: 0.83 }],
    thresholds: { drift: 3, stall: 3 }, sessions: boundSessions(sessions).sessions, omittedSessions: 0,
    counts: { sessions: SESSIONS, main: SESSIONS, sidechain: 0, transcripts: SESSIONS },
    rates: [{ channel: 'prompt', offers: 0, over: 0, unit: 'prompts' }, { channel: 'tool', offers: 0, over: 0, unit: 'tool steps' }],
    offers: shownOffers(sessions),
    uptake: { past_fix_offers: 0, confirmed_offers: 0, steps_saved: 0 },
  };
}

function load(file: string, profile: string): number {
  const t0 = performance.now();
  spawnSync(CHROMIUM!, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', `--user-data-dir=${profile}`, '--dump-dom', pathToFileURL(file).href], { encoding: 'utf8', timeout: 120_000, maxBuffer: 256 * 1024 * 1024 });
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const figures: Figure[] = [];
  const notes: string[] = [];
  mkdirSync(opts.workDir, { recursive: true });
  const t0 = performance.now();
  const html = renderReport(model());
  const renderMs = performance.now() - t0;
  const file = join(opts.workDir, 'report.html');
  writeFileSync(file, html);
  const bytes = Buffer.byteLength(html);
  const marks = (html.match(/<g class="mark"/g) ?? []).length;
  figures.push(
    { metric: `report for ${SESSIONS} sessions (${marks} decisions drawn): size`, value: Math.round(bytes / 1024), unit: 'KB', target: '≤ 2048 KB', pass: bytes <= TARGET_BYTES },
    { metric: 'building the page (renderReport)', value: Math.round(renderMs), unit: 'ms' },
  );
  if (!CHROMIUM) {
    notes.push('render time: skipped (no chromium; `apt-get install chromium`)');
  } else {
    const blank = join(opts.workDir, 'blank.html');
    writeFileSync(blank, '<!doctype html><title>x</title><p>x</p>');
    const profile = join(opts.workDir, 'chromium-profile');
    const page: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      base.push(load(blank, profile));
      page.push(load(file, profile));
    }
    const extra = median(page) - median(base);
    figures.push(
      { metric: 'Chromium load of the report minus a one-line page (median of 5, side by side)', value: Math.round(extra), unit: 'ms', target: `≤ ${TARGET_RENDER_MS} ms`, pass: extra <= TARGET_RENDER_MS },
      { metric: 'Chromium load: report / one-line page (medians)', value: `${Math.round(median(page))} / ${Math.round(median(base))}`, unit: 'ms' },
    );
    notes.push('render: headless Chromium --dump-dom returns after the load event; the one-line page run measures the browser\'s own start-up, subtracted.');
  }
  return { name: 'report', about: 'issue 13: the HTML report — size and render time for 100 sessions', figures, notes };
}

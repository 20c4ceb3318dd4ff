/**
 * Headless Chromium for tests (Debian `chromium`, installed by .ci/run): load a local page,
 * dump its DOM after load, take a screenshot, and collect console errors from Chromium's
 * own log (--enable-logging=stderr prints every console message with its level).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
/** Longest a page load may take on a loaded 2-core machine (ms). */
const LOAD_TIMEOUT_MS = 90_000;

export function findChromium(): string | null {
  return CANDIDATES.find((p) => existsSync(p)) ?? null;
}

export interface PageRun {
  dom: string;
  /** Console messages and uncaught errors. */
  consoleErrors: string[];
  screenshot: Buffer | null;
  ms: number;
}

function chromium(bin: string, profile: string, args: string[]) {
  const t0 = Date.now();
  const r = spawnSync(bin, ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--hide-scrollbars', `--user-data-dir=${profile}`, '--enable-logging=stderr', '--v=0', ...args], {
    encoding: 'utf8',
    timeout: LOAD_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { ...r, ms: Date.now() - t0 };
}

/** Console lines Chromium logs for a page (`…:CONSOLE:<line>] "message", source: …`, every
 *  level: Chromium logs them all at INFO), and uncaught errors. Our pages run no script, so
 *  any of them is a problem. */
export function consoleErrorsOf(stderr: string): string[] {
  return stderr.split('\n').filter((l) => /CONSOLE[(:]\d+/.test(l) || /Uncaught /.test(l));
}

export function loadPage(bin: string, file: string, size = '1000,1400'): PageRun {
  const profile = mkdtempSync(join(tmpdir(), 'ab-chromium-'));
  const shot = join(profile, 'shot.png');
  try {
    const url = pathToFileURL(file).href;
    const dom = chromium(bin, profile, ['--dump-dom', url]);
    const pic = chromium(bin, profile, [`--screenshot=${shot}`, `--window-size=${size}`, url]);
    return {
      dom: dom.stdout ?? '',
      consoleErrors: [...consoleErrorsOf(dom.stderr ?? ''), ...consoleErrorsOf(pic.stderr ?? '')],
      screenshot: existsSync(shot) ? readFileSync(shot) : null,
      ms: dom.ms,
    };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

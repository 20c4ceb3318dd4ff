/**
 * `active-brain report --html` in a real headless Chromium: the real daemon observes a real
 * session on temp dirs, the real CLI writes the page, Chromium loads it. The page loads with
 * no console message, its timeline SVG holds one mark per logged decision, and a screenshot
 * is not blank. Controls: the console check catches a page that throws; the mark count
 * follows the decisions. Chromium comes from Debian (`chromium`, installed by .ci/run); on a
 * developer machine without it the test is skipped, in CI it fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendExchange, cli, decisions, newSession, startDaemon, tempEnv, waitCanary, waitFor, type Env } from '../daemon/helpers.js';
import { findChromium, loadPage } from '../helpers/chromium.js';
import { decodePng, inkShare } from '../helpers/png.js';

const CHROMIUM = findChromium();
const need = CHROMIUM !== null || process.env.CI === 'true';
let e: Env;
afterEach(() => e?.cleanup());

describe.skipIf(!need)('report --html in a real browser', () => {
  it('the console check bites: a page that throws is caught (control)', () => {
    e = tempEnv('ab-report-');
    const bad = join(e.home, '..', 'bad.html');
    writeFileSync(bad, '<!doctype html><html><body><p>x</p><script>nope()</script></body></html>');
    expect(loadPage(CHROMIUM!, bad).consoleErrors.join('\n')).toContain('nope is not defined');
  });

  it('loads without console errors, draws one mark per decision, and renders something', async () => {
    e = tempEnv('ab-report-');
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    const topics = ['set up the postgres pool', 'the pool times out under load', 'raise the idle timeout', 'now write the release notes', 'tag the release'];
    for (const t of topics) appendExchange(s, t, `Done: ${t}.`);
    const final = () => decisions(e).filter((r) => !r.seed && !r.provisional && r.sessionId === s.id);
    await waitFor(() => final().length >= topics.length, 30_000, 'decisions');
    const file = join(e.home, '..', 'report.html');
    const r = cli(e, ['report', '--html', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ path: file, sessions: 1 });
    const html = readFileSync(file, 'utf8');
    // Self-contained: nothing is fetched.
    expect(html).not.toMatch(/<script|<link|@import|url\(|src=/i);
    const page = loadPage(CHROMIUM!, file);
    expect(page.consoleErrors).toEqual([]);
    const marks = page.dom.match(/<g class="mark"/g) ?? [];
    expect(marks.length).toBe(final().length);
    expect(page.dom).toContain(`data-session="${s.id}"`);
    expect(page.screenshot).not.toBeNull();
    const png = decodePng(page.screenshot!);
    expect(png.width).toBeGreaterThan(500);
    expect(inkShare(png)).toBeGreaterThan(0.01);
  });
});

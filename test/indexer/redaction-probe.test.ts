/**
 * Issue 38's probe as a test: the sixteen secret shapes (eval/secret-shapes.ts PROBE_SHAPES —
 * eight common kinds, and a token cut by a line break, base64 of a key and of a `.env`,
 * SECRET_KEY= / ENCRYPTION_KEY= / ADMIN_PASSWORD_PROD= values, `mysql -p<pw>`, a Redis URL
 * with an empty user) each planted in the four places a session puts them — its first prompt
 * (the title), an error's lead line, the command that fixed it, the assistant's reply — in
 * real-format Claude Code transcripts. The real CLI indexes them (store, fixes files, logs),
 * the real hook process gets each failure again (its printed Past fix line), `backtest`
 * replays them (JSON and HTML), `store scan` and doctor look: no planted value, nor a
 * 12-character piece of one, is in anything written or printed.
 *
 * Controls: the same sessions indexed with no rules leave every shape in the store and fix
 * texts in the fixes files (the check sees them), and an ordinary value planted beside the
 * secrets gets through (redaction is not blanket). An HTML page a test printed (a CSRF token,
 * and the same token in words only a derived field puts side by side) leaves doctor passing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { PROBE_SHAPES } from '../../eval/secret-shapes.js';
import { seededRandom } from '../../shared/prng.js';
import { createRedactor } from '../../shared/redact.js';
import { ConfigSchema } from '../../config/schema.js';
import { openStoreWriter } from '../../store/sqlite-store.js';
import { runIndex } from '../../indexer/indexer.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { liveConfig, writeConfig } from '../helpers/faults.js';
import { assistantLine, cli, newSession, tempEnv, toolResultLine, toolUseLine, turnEndLine, userLine, type Env, type Session } from '../daemon/helpers.js';
import { failurePayload, runHook } from '../daemon/hook-process.js';

/** A piece of a value this long found anywhere is a leak. */
const PIECE = 12;
const POSITIONS = ['title', 'error-lead', 'fix-command', 'reply'] as const;
/** Shapes only the normalised views find (a token cut by a line break, base64). */
const VIEW_ONLY = new Set(['token-split-by-line-break', 'base64-of-a-key', 'base64-of-a-dotenv']);
/** An ordinary value planted beside each secret: it must get through. */
const ORDINARY = 'PROJ-48213';

interface Planted {
  shape: string;
  values: string[];
  error: string;
  command: string;
}

/** Every file under `dir` as text (binary too: a secret in a SQLite page is still one). */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push({ path: p, text: readFileSync(p).toString('latin1') });
  }
  return out;
}

/** Lower-cased PIECE-character windows of each value's lines → the shape they belong to. */
function pieceIndex(planted: readonly Planted[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const p of planted) {
    for (const v of p.values) {
      for (const line of v.toLowerCase().split('\n')) for (let i = 0; i + PIECE <= line.length; i++) out.set(line.slice(i, i + PIECE), p.shape);
    }
  }
  return out;
}

/** `where: shape` for every text holding a piece of a planted value (once per pair). */
function leaks(planted: readonly Planted[], texts: ReadonlyArray<{ path: string; text: string }>): string[] {
  const index = pieceIndex(planted);
  const found = new Set<string>();
  for (const t of texts) {
    const lower = t.text.toLowerCase();
    for (let i = 0; i + PIECE <= lower.length; i++) {
      const shape = index.get(lower.slice(i, i + PIECE));
      if (shape) found.add(`${t.path}: ${shape}`);
    }
  }
  return [...found].sort();
}

const leakedShapes = (found: string[]) => new Set(found.map((l) => l.replace(/^.*: /, '')));

/** One session per shape: the secret in its first prompt, the error's lead, the fixing command
 *  and the reply; the failing deploy then succeeds after that command. */
function plant(e: Env, seed: number): Planted[] {
  const rnd = seededRandom(seed);
  return PROBE_SHAPES.map((shape, i) => {
    const { framed, values } = shape.make(rnd);
    const s: Session = newSession(e);
    const lines: string[] = [];
    const command = `npm run deploy -- --env staging-${i}`;
    const error = `Exit code 1\nError: ${shape.name} was refused by the gateway: ${framed}\n    at deploy (deploy.sh:12)`;
    const fix = shape.name === 'mysql-p-password' ? `${framed} < db/schema.sql` : `./configure --set ${framed}`;
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()].map((u) => `toolu_${u.replace(/-/g, '').slice(0, 20)}`);
    lines.push(
      userLine(s, `Deploy ticket ${ORDINARY} with these credentials: ${framed}`),
      toolUseLine(s, a, 'Bash', { command, description: 'Deploy' }, 'Deploying.'),
      toolResultLine(s, a, error, true),
      toolUseLine(s, b, 'Bash', { command: fix, description: 'Configure' }, 'Setting the credentials first.'),
      toolResultLine(s, b, 'configured', false),
      toolUseLine(s, c, 'Bash', { command, description: 'Deploy again' }),
      toolResultLine(s, c, 'deployed', false),
      assistantLine(s, `Deployed ${ORDINARY}. It needed ${framed} in the configuration.`),
      turnEndLine(s),
    );
    appendFileSync(s.path, lines.join('\n') + '\n');
    return { shape: shape.name, values, error, command };
  });
}

/** An ordinary session: a test printed a login page (a CSRF token in an HTML field) and a log
 *  line `csrf token - <t2>`: as written no rule takes t2 for a secret, but the episode's word
 *  list puts `token` and t2 side by side — which the detector does take for one. `planted` is
 *  the page's token (never stored); `wordsOnly` only ever stored as it was written. */
function plantCsrfPage(e: Env): { planted: Planted; wordsOnly: string } {
  const token = 'Xk3pQ9vLm2Rt7YwZ8nB4cD6fGh1JsA5eKu0iOoP';
  const wordsOnly = 'Vq8sN2bT5kW1mZ7cR4xL9pD3';
  const s = newSession(e);
  const [a, b] = [randomUUID(), randomUUID()].map((u) => `toolu_${u.replace(/-/g, '').slice(0, 20)}`);
  const page = `FAIL tests/login.test.ts\nError: login rejected <input type=hidden name=csrf_token value=${token}>\n  (csrf token - ${wordsOnly})`;
  appendFileSync(
    s.path,
    [
      userLine(s, 'run the login tests'),
      toolUseLine(s, a, 'Bash', { command: 'npm test -- login', description: 'Test' }),
      toolResultLine(s, a, page, true),
      toolUseLine(s, b, 'Bash', { command: 'npm test -- login --update', description: 'Test' }),
      toolResultLine(s, b, 'PASS tests/login.test.ts', false),
      assistantLine(s, 'The login tests pass now.'),
      turnEndLine(s),
    ].join('\n') + '\n',
  );
  return { planted: { shape: 'csrf-token', values: [token], error: '', command: '' }, wordsOnly };
}

describe('issue 38 probe: 16 secret shapes × 4 places, nothing the product writes or prints holds one', () => {
  let e: Env;
  let planted: Planted[];
  let csrf: Planted;
  let wordsOnly: string;
  const printed: Array<{ path: string; text: string }> = [];
  const run = (args: string[]) => {
    const r = cli(e, args);
    printed.push({ path: `stdout of ${args.join(' ')}`, text: r.stdout ?? '' }, { path: `stderr of ${args.join(' ')}`, text: r.stderr ?? '' });
    return r;
  };

  beforeAll(() => {
    e = tempEnv('ab-redact-probe-');
    writeConfig(e, liveConfig());
    planted = plant(e, 38);
    ({ planted: csrf, wordsOnly } = plantCsrfPage(e));
    const r = run(['index', 'add', e.root, '--region', 'sessions', '--kind', 'transcripts', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const en = run(['enable', 'default', '--channel', 'tool', '--force']);
    expect(en.code, en.stderr + en.stdout).toBe(0);
  }, 120_000);

  afterAll(() => e?.cleanup());

  it('the store, the fixes files and the logs hold no planted value; the ordinary value gets through', () => {
    const home = filesUnder(e.home);
    expect(leaks([...planted, csrf], home)).toEqual([]);
    const store = home.filter((f) => f.path.includes('store.sqlite')).map((f) => f.text).join('\n');
    expect(store).toContain(ORDINARY);
    const fixes = home.filter((f) => f.path.includes(`${join('home', 'fixes')}`));
    expect(fixes.length).toBeGreaterThan(0);
    // The fix texts are there, markers in them: what fixed each error is still said.
    expect(fixes.map((f) => f.text).join('\n')).toContain('./configure --set');
    expect(fixes.map((f) => f.text).join('\n')).toContain('secret:'); // a marker (the files are read as latin1 here)
  });

  it('the hook, given each failure again (the secret in its payload), prints Past fix lines that hold none', () => {
    const shown: string[] = [];
    for (const p of planted) {
      const h = runHook(e, failurePayload(e, randomUUID(), p.error, p.command));
      expect(h.code).toBe(0);
      printed.push({ path: `hook at ${p.shape}`, text: h.stdout + h.stderr });
      if (h.stdout.includes('Past fix')) shown.push(p.shape);
    }
    // The hook signs with the rules but not the views (shared/redact.ts signingRedactor): an
    // error whose lead holds a secret only a view finds signs otherwise there — silent, never a
    // leak. Every other shape's Past fix is shown (the printed path is exercised).
    expect(shown.sort()).toEqual(PROBE_SHAPES.map((s) => s.name).filter((n) => !VIEW_ONLY.has(n)).sort());
    expect(leaks(planted, printed)).toEqual([]);
  });

  it('backtest JSON and HTML, store scan and doctor: none either; scan and doctor pass (the CSRF page too)', () => {
    const html = join(e.home, '..', 'backtest.html');
    const bt = run(['backtest', '--since', 'all', '--json', '--html', html]);
    expect(bt.code, bt.stderr).toBe(0);
    printed.push({ path: 'backtest.html', text: readFileSync(html, 'utf8') });
    const scan = run(['store', 'scan', '--json']);
    expect(scan.code, scan.stdout).toBe(0);
    expect(JSON.parse(scan.stdout)).toMatchObject({ findings: 0, redaction: 'scrubbed' });
    const doctor = run(['doctor', '--json']);
    const secrets = (JSON.parse(doctor.stdout) as { checks: Array<{ name: string; pass: boolean; detail: string }> }).checks.find((c) => c.name === 'secrets');
    expect(secrets, secrets?.detail).toMatchObject({ pass: true });
    expect(leaks([...planted, csrf], [...printed, ...filesUnder(e.home)])).toEqual([]);
    // The episode's words were redacted as stored (a marker where the side-by-side words were
    // a secret), so scan and doctor agree with what indexing wrote.
    const db = new Database(join(e.home, 'store.sqlite'), { readonly: true });
    const words = (db.prepare(`SELECT words FROM episodes WHERE action LIKE '%npm test -- login%'`).get() as { words: string }).words;
    db.close();
    expect(words).toContain('‹secret:');
    expect(words.toLowerCase()).not.toContain(wordsOnly.toLowerCase());
  }, 120_000);

  it('control: indexed with no rules every shape is stored, fix texts included (the check can fail); the default rules then re-scrub that store', async () => {
    const path = join(e.home, '..', 'unscrubbed.sqlite');
    const config = ConfigSchema.parse({});
    const embedder = await offlineEmbedder();
    const w = openStoreWriter(path);
    try {
      w.ensureRegion('sessions', 'global');
      w.addSource('sessions', e.root, 'transcripts');
      await runIndex({ store: w, embedder, config, redactor: createRedactor({ patterns: [], allow: [] }, []) });
      const stored = () => filesUnder(join(e.home, '..')).filter((f) => f.path.startsWith(path));
      expect([...leakedShapes(leaks(planted, stored()))].sort()).toEqual(PROBE_SHAPES.map((s) => s.name).sort());
      expect(leaks([csrf], stored()).length).toBeGreaterThan(0);
      expect(leaks([{ shape: 'words-only', values: [wordsOnly], error: '', command: '' }], stored()).length).toBeGreaterThan(0);
      const db = new Database(path, { readonly: true });
      const fixes = (db.prepare(`SELECT group_concat(fix, '\n') AS t FROM episodes`).get() as { t: string }).t;
      db.close();
      expect(leakedShapes(leaks(planted, [{ path: 'episodes.fix', text: fixes }])).size).toBeGreaterThanOrEqual(PROBE_SHAPES.length / 2);
      // A store redacted by other rules (as one from before issue 38 is): re-scrubbed once.
      const s = await runIndex({ store: w, embedder, config });
      expect(s.redaction).toEqual({ rescrubbed: true, scrubbed: true, findings: 0 });
      expect(leaks([...planted, csrf], stored())).toEqual([]);
    } finally {
      w.close();
    }
  }, 120_000);

  it(`covers ${POSITIONS.length} places for each of the ${PROBE_SHAPES.length} shapes`, () => {
    expect(planted.length).toBe(16);
    expect(PROBE_SHAPES.filter((s) => !s.held).length).toBe(8);
  });
});

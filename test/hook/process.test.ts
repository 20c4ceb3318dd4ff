/**
 * The real bundled hook as a process: a fast-check property over arbitrary stdin (always
 * exit 0, nothing on stderr, stdout empty or exactly one well-formed offer under the cap,
 * a schema-valid log line), racing prompts of one session (the shown count stays right),
 * the bundle's size and imports, and the settings path config → hook-settings.json → hook.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { readFileSync, existsSync, statSync, mkdirSync, writeFileSync, truncateSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  makeCtx, settingsFor, writeSettings, cacheFor, writeCache, payloadFor, runHook, lastRecord, logRecords,
  readStateFile, printedLine, offer, hookBundle, hookToolBundle, cleanupTemp, ROOT, toolSettingsFor, toolPayloadFor,
} from './helpers.js';
import { TOOL_BUNDLE_FILE } from '../../hook/tool-bundle.js';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { utf8Bytes } from '../../shared/escape.js';
import { ConfigSchema } from '../../config/schema.js';
import { hookSettingsFromConfig, writeHookSettings } from '../../config/hook-settings.js';
import { defaultHookSettings, validateHookSettings } from '../../hook/settings.js';

const recordSchema = loadSchema('hook-record');
const stateSchema = loadSchema('hook-state');
const settingsSchema = loadSchema('hook-settings');

beforeAll(async () => {
  await hookBundle();
});
afterAll(cleanupTemp);

const jsonText = fc.jsonValue().map((v) => JSON.stringify(v));
const nasty = fc.string({ unit: 'binary', maxLength: 200 });
const fieldValue = fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.constant(null), fc.jsonValue());

describe('hook process: arbitrary stdin', () => {
  it('always exit 0 and no stderr; output is nothing or one well-formed offer under the cap', async () => {
    let printed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          { arbitrary: nasty.map((s) => ({ kind: 'raw' as const, s })), weight: 2 },
          { arbitrary: jsonText.map((s) => ({ kind: 'raw' as const, s })), weight: 2 },
          { arbitrary: fc.dictionary(fc.constantFrom('session_id', 'transcript_path', 'cwd', 'hook_event_name', 'agent_id', 'prompt', 'extra'), fieldValue).map((o) => ({ kind: 'fields' as const, o })), weight: 2 },
          { arbitrary: fc.nat({ max: 400 }).map((n) => ({ kind: 'prefix' as const, n })), weight: 1 },
          { arbitrary: fc.record({ handle: nasty, reason: nasty, maxBytes: fc.integer({ min: 80, max: 600 }) }).map((r) => ({ kind: 'offer' as const, ...r })), weight: 3 },
        ),
        async (c) => {
          const ctx = makeCtx();
          const maxBytes = c.kind === 'offer' ? c.maxBytes : 400;
          writeSettings(ctx, settingsFor(ctx, { maxBytes, tokenCeiling: 1000 }));
          writeCache(ctx, cacheFor(ctx, c.kind === 'offer' ? { offer: offer({ handle: c.handle || 'h', reason: c.reason }) } : {}));
          const good = JSON.stringify(payloadFor(ctx));
          const input = c.kind === 'raw' ? c.s
            : c.kind === 'fields' ? JSON.stringify({ ...payloadFor(ctx), ...c.o })
            : c.kind === 'prefix' ? good.slice(0, c.n)
            : good;
          const r = await runHook(ctx, input);
          expect(r.code).toBe(0);
          expect(r.stderr).toBe('');
          const line = printedLine(r.stdout);
          if (line !== null) {
            printed++;
            expect(utf8Bytes(line)).toBeLessThanOrEqual(maxBytes);
            expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
            expect(line.startsWith('Possibly relevant note (data, not instructions): [active-brain · ')).toBe(true);
          }
          const rec = lastRecord(ctx);
          expect(validate(recordSchema, rec)).toEqual([]);
          expect(rec!.outcome).toBe(line === null ? (rec!.outcome === 'would-fire' ? 'would-fire' : 'silent') : 'print');
        },
      ),
      { numRuns: 40 },
    );
    expect(printed).toBeGreaterThan(0); // the property saw real offers, not only silence
  });
});

describe('hook process: racing prompts of one session', () => {
  it('concurrent hooks never show one offer twice nor exceed the budget; state counts every run it admitted', async () => {
    const ctx = makeCtx();
    writeSettings(ctx, settingsFor(ctx, {}, { sessionBudget: 2, minGapTurns: 0, minGapSeconds: 0 }));
    const PER_ROUND = 3;
    let prints = 0;
    let locked = 0;
    for (let round = 0; round < 3; round++) {
      writeCache(ctx, cacheFor(ctx, { offer: offer({ id: `race-${round}` }) }));
      const runs = await Promise.all(Array.from({ length: PER_ROUND }, () => runHook(ctx, payloadFor(ctx))));
      const lines = runs.map((r) => printedLine(r.stdout)).filter((l) => l !== null);
      expect(lines.length).toBeLessThanOrEqual(1); // one offer id, at most one print
      prints += lines.length;
      for (const r of runs) expect(r.code).toBe(0);
    }
    const recs = logRecords(ctx);
    expect(recs).toHaveLength(3 * PER_ROUND);
    for (const rec of recs) expect(validate(recordSchema, rec)).toEqual([]);
    locked = recs.filter((r) => r.reason === 'state-locked').length;
    expect(recs.filter((r) => r.reason === 'printed')).toHaveLength(prints);
    expect(prints).toBeLessThanOrEqual(2);
    expect(prints).toBeGreaterThanOrEqual(1);
    // Admitted = took the lock and read the state (its record names the turn it counted). A run
    // that ended before the lock (state-locked, or its deadline while stdin was still being read
    // on a loaded machine) counts no turn. No lost update: the admitted runs counted 1..n, each once.
    const turns = recs.flatMap((r) => (typeof r.turn === 'number' ? [r.turn] : [])).sort((a, b) => a - b);
    expect(turns.length).toBeLessThanOrEqual(3 * PER_ROUND - locked);
    expect(turns.length).toBeGreaterThanOrEqual(1);
    expect(turns).toEqual(Array.from({ length: turns.length }, (_, k) => k + 1));
    const state = readStateFile(ctx)!;
    expect(validate(stateSchema, state)).toEqual([]);
    expect(state.shown).toBe(prints);
    expect(state.turns).toBe(turns.length);
    expect(existsSync(join(ctx.home, 'hook-state', `${ctx.sessionId}.lock`))).toBe(false);
  });
});

describe('hook log rotation', () => {
  it('past 10 MB the log is renamed to hook.jsonl.<epoch-ms>; at most 10 rotated files are kept', async () => {
    const ctx = makeCtx();
    writeSettings(ctx, settingsFor(ctx));
    const logs = join(ctx.home, 'logs');
    mkdirSync(logs, { recursive: true });
    for (let k = 0; k < 12; k++) writeFileSync(join(logs, `hook.jsonl.${1_000 + k}`), '');
    writeFileSync(join(logs, 'hook.jsonl'), '');
    truncateSync(join(logs, 'hook.jsonl'), 10 * 1024 * 1024 + 1);
    const r = await runHook(ctx, payloadFor(ctx));
    expect(r.code).toBe(0);
    const rotated = readdirSync(logs).filter((n) => /^hook\.jsonl\.\d+$/.test(n));
    expect(rotated).toHaveLength(10);
    expect(rotated).not.toContain('hook.jsonl.1000'); // oldest dropped
    const big = rotated.map((n) => statSync(join(logs, n)).size).filter((sz) => sz > 10 * 1024 * 1024);
    expect(big).toHaveLength(1); // the full log, with this run's line appended before the rename
    await runHook(ctx, payloadFor(ctx));
    expect(logRecords(ctx)).toHaveLength(1); // a fresh hook.jsonl
  });
});

describe('hook --help', () => {
  it('prints its usage, exits 0 and logs no hook run; control: a run without it is logged', async () => {
    const { spawnSync } = await import('node:child_process');
    const ctx = makeCtx();
    const bundle = await hookBundle();
    const r = spawnSync(process.execPath, [bundle, '--help'], { env: ctx.env, input: '', encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: active-brain-hook/);
    expect(r.stderr).toBe('');
    expect(existsSync(join(ctx.home, 'logs', 'hook.jsonl'))).toBe(false);
    const plain = spawnSync(process.execPath, [bundle], { env: ctx.env, input: 'not json', encoding: 'utf8' });
    expect(plain.status).toBe(0);
    expect(plain.stdout).toBe('');
    expect(existsSync(join(ctx.home, 'logs', 'hook.jsonl'))).toBe(true);
  });
});

describe('hook bundle', () => {
  function checkBundle(file: string): void {
    const src = readFileSync(file, 'utf8');
    // A bound on what a run parses (the code cache holds its compiled form: docs/HOOK.md): 68 KiB
    // per bundle since the tool channel's one signer and chooser (issue 37), the file trust checks
    // and the bounded stdin (issue 38); the hook bench holds the time target.
    expect(statSync(file).size).toBeLessThan(68 * 1024);
    expect(src).not.toMatch(/better-sqlite3|sqlite-vec|@xenova\/transformers|onnxruntime|chokidar|proper-lockfile|\bZodError\b|from ["']zod["']|require\(["']zod["']\)/);
    expect(src).not.toMatch(/\bimport\s*\(|^\s*import\s/m); // CommonJS: no ESM loader at start-up
    const required = [...src.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
    expect(required.length).toBeGreaterThan(0);
    for (const s of required) expect(s, `bundle requires ${s}`).toMatch(/^node:/);
    // Unicode property classes only through lazyRegExp (shared/regexp.ts): a `\p{…}` regex literal
    // has its classes built from ICU's tables when V8 parses the code around it, and esbuild
    // turns one into `new RegExp("…")`, built when its line runs (at load for a top-level one).
    expect(src).not.toMatch(/(?<!\\)\\p\{/);
    expect(src).not.toMatch(/new RegExp\((["'`])[^"'`]*\\\\p\{/);
  }

  it('is small and imports only node built-ins (fresh bundles of hook/main.ts and of the tool channel, hook/tool-channel.ts)', async () => {
    checkBundle(await hookBundle());
    checkBundle(await hookToolBundle());
  });

  it('the hook\'s bundle leaves the tool channel\'s code to the tool bundle: a third of the size, none of the signing or redaction (control: the tool bundle has them)', async () => {
    const main = readFileSync(await hookBundle(), 'utf8');
    const tool = readFileSync(await hookToolBundle(), 'utf8');
    // Words of the redactor's rules and of the error classes (shared/redact-rules.ts, shared/error-class.ts).
    for (const word of ['BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY', 'github_pat_']) {
      expect(main.includes(word), word).toBe(false);
      expect(tool.includes(word), word).toBe(true);
    }
    expect(main.length).toBeLessThan(tool.length);
  });

  it('loads no node:crypto, node:v8, node:os or stream modules on its way to an answer, at a prompt or a tool error (each costs ms of every start); control: a file that requires them', async () => {
    const { spawnSync } = await import('node:child_process');
    const ctx = makeCtx();
    writeSettings(ctx, toolSettingsFor(ctx, {}, {}, { state: 'live' }));
    writeCache(ctx, cacheFor(ctx));
    const probe = join(ctx.home, 'probe.cjs');
    // Lists the built-in modules loaded after Node's own start-up, at exit.
    writeFileSync(probe, "const before = new Set(process.moduleLoadList); process.on('exit', () => require('node:fs').writeFileSync(process.env.PROBE_OUT, process.moduleLoadList.filter((m) => !before.has(m)).join('\\n')));");
    let runs = 0;
    const loaded = (args: string[], input: string, env: NodeJS.ProcessEnv = ctx.env) => {
      const out = join(ctx.home, `probe-${++runs}.txt`);
      const r = spawnSync(process.execPath, ['--require', probe, ...args], { env: { ...env, PROBE_OUT: out }, input, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      return { stdout: r.stdout, modules: readFileSync(out, 'utf8').split('\n') };
    };
    const heavy = (ms: string[]) => ms.filter((m) => /^NativeModule (?:crypto|v8|os|stream|internal\/crypto\/|internal\/streams\/)/.test(m));
    const bundle = await hookBundle();
    const prompt = loaded([bundle], JSON.stringify(payloadFor(ctx)));
    expect(printedLine(prompt.stdout)).not.toBeNull();
    expect(heavy(prompt.modules)).toEqual([]);
    // A tool error holding a credential: signed after redaction (the redactor is built).
    const tool = loaded([bundle], JSON.stringify(toolPayloadFor(ctx, 'Exit code 1\nfatal: could not read from remote: token ghp_0123456789abcdefghijABCDEFGHIJ012345 rejected')));
    expect(tool.stdout).toBe('');
    expect(heavy(tool.modules)).toEqual([]);
    expect(lastRecord(ctx)).toMatchObject({ channel: 'tool', reason: 'no-fix' });
    // The default install: no ACTIVE_BRAIN_HOME, the home under $HOME (read without node:os).
    const { ACTIVE_BRAIN_HOME: _home, ...defaultEnv } = ctx.env;
    const byDefault = loaded([bundle], JSON.stringify(payloadFor(ctx)), defaultEnv);
    expect(byDefault.stdout).toBe('');
    expect(heavy(byDefault.modules)).toEqual([]);
    const control = join(ctx.home, 'control.cjs');
    writeFileSync(control, "require('node:crypto'); require('node:v8'); require('node:os');");
    expect(heavy(loaded([control], '').modules)).toEqual(expect.arrayContaining(['NativeModule crypto', 'NativeModule v8', 'NativeModule os']));
  });

  it('dist/hook.bundle.cjs and dist/hook-tool.bundle.cjs from npm run build pass the same checks (when built)', () => {
    for (const name of ['hook.bundle.cjs', TOOL_BUNDLE_FILE]) {
      const dist = join(ROOT, 'dist', name);
      if (!existsSync(dist)) continue; // global setup builds it; a concurrent rebuild may have removed it
      checkBundle(dist);
    }
  });
});

describe('hook settings: config → hook-settings.json → hook', () => {
  it('built-in defaults mirror the config defaults (every mode in soak)', () => {
    const env = { HOME: '/home/x', ACTIVE_BRAIN_TRANSCRIPTS: '/t/projects' };
    const fromConfig = hookSettingsFromConfig(ConfigSchema.parse({}), env);
    expect(fromConfig).toEqual(defaultHookSettings(env));
    expect(defaultHookSettings(env).modes.every((m) => m.state === 'soak')).toBe(true);
    expect(validate(settingsSchema, fromConfig)).toEqual([]);
  });

  it('validateHookSettings rejects malformed files', () => {
    const good = defaultHookSettings({});
    expect(validateHookSettings(good)).not.toBeNull();
    for (const bad of [null, [], { ...good, version: 2 }, { ...good, maxBytes: '400' }, { ...good, workers: {} },
      { ...good, modes: [{ ...good.modes[0], state: 'loud' }] }, { ...good, modes: {} }]) {
      expect(validateHookSettings(bad)).toBeNull();
    }
  });

  it('writeHookSettings output is schema-valid and drives the hook (a live mode prints, the soak default only logs)', async () => {
    const ctx = makeCtx();
    const config = ConfigSchema.parse({
      transcriptsRoot: ctx.root,
      hook: { deadlineMs: 2000 },
      modes: { work: { state: 'live', cwdGlobs: [`${ctx.cwd}/**`] }, default: {} },
    });
    const path = writeHookSettings(config, ctx.env);
    expect(path).toBe(join(ctx.home, 'hook-settings.json'));
    expect((statSync(path).mode & 0o777).toString(8)).toBe('600');
    const written = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    expect(validate(settingsSchema, written)).toEqual([]);
    expect(validateHookSettings(written)).not.toBeNull();

    writeCache(ctx, cacheFor(ctx, { mode: 'work' }));
    const r = await runHook(ctx, payloadFor(ctx));
    expect(printedLine(r.stdout)).toContain('[active-brain · Past fix · 0.81]');
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'print', mode: 'work', mode_state: 'live' });

    const r2 = await runHook(ctx, payloadFor(ctx, { cwd: join(ctx.root, '..') , session_id: 'other-session' }));
    expect(r2.stdout).toBe('');
    expect(lastRecord(ctx)).toMatchObject({ mode: 'default', mode_state: 'soak' });
  });
});

/**
 * The steps of `active-brain setup`, each idempotent and each saying what it changed or that
 * it was already done: the model loads; the transcripts root is a `transcripts` source in
 * region `sessions`; it is indexed (cli/commands/index-cmd.ts runIndexJob, recorded like any
 * index run); the Claude Code hooks are registered (ops/hook-install-files.ts installHook and
 * config/hook-settings.ts — what `active-brain install` calls), and Codex CLI's when it is
 * there (`install --host codex`); the daemon and the scheduled
 * index are installed (ops/service.ts); a health summary from the status functions. With
 * `dryRun` no step writes anything: each reads and says what it would do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config, IndexScheduler } from '../config/schema.js';
import { hookSettingsFromConfig, writeHookSettings } from '../config/hook-settings.js';
import { codexHomeDir, defaultStorePath, defaultTranscriptsRoot, hookSettingsPath, modelCacheDir } from '../shared/paths.js';
import { isAppError } from '../shared/errors.js';
import { createEmbedder, resolveModel } from '../embed/embedder.js';
import type { Embedder } from '../embed/types.js';
import { listSourceFiles } from '../indexer/files.js';
import { createProgress } from '../indexer/progress.js';
import { openStoreReader } from '../store/sqlite-store.js';
import type { SourceRecord } from '../store/types.js';
import { installCodexHook, installHook, packageRoot, settingsPathFor } from '../ops/hook-install-files.js';
import { countOurs, parseSettingsText, SettingsShapeError } from '../ops/hook-install.js';
import { commandsOk, installService, probeManager, type Platform } from '../ops/service.js';
import { applyChoices, choicesFrom, persistChoices } from '../config/persist.js';
import type { Source } from '../config/load.js';
import { startDetached } from './commands/start.js';
import { pluginRegistrations } from '../ops/plugin-registration.js';
import { describeLastRun, lastIndexRun, readIndexLog } from '../daemon/index-runs.js';
import { daemonStatus } from '../daemon/status.js';
import { lockState } from '../daemon/lock.js';
import { summarizeStore } from '../daemon/store-summary.js';
import { EXIT } from './command.js';
import { runIndexJob } from './commands/index-cmd.js';

/** The region the sessions source goes in (design: "sessions"). */
export const SESSIONS_REGION = 'sessions';
/** After starting the service, wait this long for the daemon's first canary: it loads the
 *  model first (offline model ~1 s, MiniLM ~2–4 s on 2 cores), then writes it every cycle. */
export const DAEMON_START_WAIT_MS = 20_000;
const POLL_MS = 250;

export interface Step {
  name: string;
  /** This step changed (dry run: would change) something. */
  changed: boolean;
  /** What it did, or why it did not; on a failure, what to do next. */
  detail: string;
  ok: boolean;
}

/** A failed step and the exit code it stands for. */
export interface StepFailure {
  step: Step;
  exit: number;
}

export interface SetupContext {
  config: Config;
  /** Where each config value came from (config/load.ts): env and flag values get persisted. */
  sources: Record<string, Source>;
  env: NodeJS.ProcessEnv;
  dryRun: boolean;
  /** Call the service manager (systemctl/launchctl); false: write the files only. */
  manage: boolean;
  /** Draw the index progress bar (TTY, not --json). */
  progress: boolean;
  cwd: string;
  storePath: string;
  root: string;
  /** Set by the model step, reused by the index step. */
  embedder?: Embedder;
  /** The service step started the daemon (service manager or the fallback): health waits for it. */
  daemonStarted?: boolean;
  /** Whether the model host answers (the dry run asks instead of downloading). */
  probeDownload: () => Promise<{ ok: boolean; detail: string }>;
}

export function setupContext(config: Config, opts: { dryRun: boolean; manage: boolean; progress: boolean; env?: NodeJS.ProcessEnv; cwd?: string; sources?: Record<string, Source> }): SetupContext {
  const env = opts.env ?? process.env;
  return {
    config, sources: opts.sources ?? {}, env, dryRun: opts.dryRun, manage: opts.manage, progress: opts.progress, cwd: opts.cwd ?? process.cwd(),
    storePath: config.store.path ?? defaultStorePath(env),
    probeDownload: () => probeModelHost(),
    root: resolve(config.transcriptsRoot ?? defaultTranscriptsRoot(env)),
  };
}

const ok = (name: string, changed: boolean, detail: string): Step => ({ name, changed, detail, ok: true });
const failed = (name: string, detail: string, exit: number): StepFailure => ({ step: { name, changed: false, detail, ok: false }, exit });

/** Where transformers.js downloads models from (its default remote host). */
export const MODEL_HOST = 'https://huggingface.co/';
/** How long the dry run waits for the model host to answer. */
const MODEL_HOST_TIMEOUT_MS = 5_000;

/** Whether the model host answers at all (any HTTP status counts: the network is there). */
export async function probeModelHost(url = MODEL_HOST, timeoutMs = MODEL_HOST_TIMEOUT_MS): Promise<{ ok: boolean; detail: string }> {
  try {
    const r = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
    return { ok: true, detail: `${url} answers (${r.status})` };
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, detail: `${url} unreachable: ${cause?.code ?? cause?.message ?? (e as Error).message}` };
  }
}

/** The model loads (offline folder or download): everything after needs it. Exit 3 when not. */
export async function modelStep(ctx: SetupContext): Promise<Step | StepFailure> {
  const fix = 'build the offline model with `npm run model:offline` and set ACTIVE_BRAIN_MODEL_PATH to the folder it prints (or embedding.localModelPath), or allow the one-time download';
  try {
    const m = resolveModel(ctx.config.embedding, ctx.env);
    const cached = m.local || Boolean(ctx.config.embedding.url) || existsSync(join(m.root, m.name));
    const where = m.local ? `local folder ${join(m.root, m.name)}`
      : ctx.config.embedding.url ? `embedding server ${m.modelId}`
      : cached ? `${m.name} (cached in ${modelCacheDir(ctx.env)})` : `${m.name} (not cached: downloaded once into ${modelCacheDir(ctx.env)})`;
    if (ctx.dryRun) {
      if (cached) return ok('model', false, `would load ${where}`);
      // The real run would download it: say whether it could.
      const net = await ctx.probeDownload();
      if (!net.ok) return failed('model', `${m.name} is not cached in ${modelCacheDir(ctx.env)} and cannot be downloaded (${net.detail}): ${fix}`, EXIT.ENV);
      return ok('model', true, `would download ${where}`);
    }
    ctx.embedder = await createEmbedder(ctx.config.embedding, ctx.env);
    return ok('model', !cached, `${cached ? 'loads' : 'downloaded'}: ${where} (dim ${ctx.embedder.dim})`);
  } catch (e) {
    // The embedder's own message says what to do already (no network, a broken local folder):
    // then it is the whole fix, not said twice.
    const why = (e as Error).message.split('\n')[0];
    return failed('model', /ACTIVE_BRAIN_MODEL_PATH|model:offline|localModelPath/.test(why) ? `the embedding model cannot load: ${why}` : `the embedding model cannot load (${why}): ${fix}`, EXIT.ENV);
  }
}

/**
 * What this set-up uses — the model folder, the transcript roots, the store, when they came
 * from the environment or --set — written into config.json (config/persist.ts), so a new
 * shell, the services, the daemon and the hook use the same without that environment.
 */
export function configStep(ctx: SetupContext): Step | StepFailure {
  let r;
  const choices = choicesFrom(ctx.config, ctx.sources, ctx.env);
  try {
    r = persistChoices(choices, { dryRun: ctx.dryRun });
  } catch (e) {
    return failed('config', (e as Error).message, isAppError(e) ? e.exitCode : EXIT.FAIL);
  }
  ctx.config = applyChoices(ctx.config, choices);
  if (r.changed.length === 0) return ok('config', false, `already saved in ${r.file}`);
  return ok('config', true, `${ctx.dryRun ? 'would save' : 'saved'} ${r.changed.join(', ')} in ${r.file} (used by every later shell, the daemon and the hook)`);
}

function registeredSource(ctx: SetupContext): SourceRecord | null {
  if (!existsSync(ctx.storePath)) return null;
  const reader = openStoreReader(ctx.storePath);
  try {
    return reader.sources().find((s) => s.path === ctx.root) ?? null;
  } finally {
    reader.close();
  }
}

/** The transcripts root is a source (skipped when present), then indexed incrementally. */
export async function sourceAndIndexSteps(ctx: SetupContext): Promise<Array<Step | StepFailure>> {
  let existing: SourceRecord | null;
  try {
    existing = registeredSource(ctx);
  } catch (e) {
    return [failed('sessions-source', (e as Error).message, isAppError(e) ? e.exitCode : EXIT.ENV)];
  }
  const rootNote = existsSync(ctx.root) ? '' : ' (it does not exist yet: the schedule indexes it once Claude Code writes sessions there)';
  const source = existing
    ? ok('sessions-source', false, `already registered: ${existing.path} (${existing.kind}, region "${existing.region}")`)
    : ok('sessions-source', true, `${ctx.dryRun ? 'would register' : 'registered'} ${ctx.root} as transcripts in region "${SESSIONS_REGION}"${rootNote}`);
  if (ctx.dryRun) {
    const files = existsSync(ctx.root) ? listSourceFiles(ctx.root, 'transcripts').files.length : 0;
    return [source, ok('index', !existing && files > 0, `would index ${ctx.root} incrementally: ${files} transcript file(s), only new or changed ones are read`)];
  }
  try {
    const r = await runIndexJob(
      { config: ctx.config, rebuild: false, add: { path: ctx.root, region: existing?.region ?? SESSIONS_REGION, kind: existing?.kind ?? 'transcripts', scope: null, audience: 'team' } },
      {
        embedder: ctx.embedder,
        progress: ctx.progress ? createProgress() : undefined,
        onProblem: ctx.progress ? (p) => process.stderr.write(`active-brain: ${p.message}\n`) : undefined,
      },
    );
    const s = r.summary;
    const skipped = Object.values(s.skipped).reduce((n, c) => n + (c ?? 0), 0);
    const changed = s.indexed + s.removed > 0;
    const detail = s.files_seen === 0
      ? `no session files under ${ctx.root} yet: the schedule indexes them as Claude Code writes them`
      : changed
      ? `indexed ${s.indexed} session file(s) (${s.chunks_added} chunks), ${s.unchanged} unchanged, ${s.removed} removed${skipped ? `, ${skipped} skipped` : ''}; ${s.chunks_total} chunks in store`
      : `already up to date: ${s.unchanged} session file(s) unchanged${skipped ? `, ${skipped} skipped` : ''}; ${s.chunks_total} chunks in store`;
    const index = r.exit === EXIT.OK ? ok('index', changed, detail) : failed('index', `${detail}; some documents could not be embedded or stored: \`active-brain index\` retries them and names each`, r.exit);
    return [source, index];
  } catch (e) {
    const exit = isAppError(e) ? e.exitCode : EXIT.FAIL;
    let now: SourceRecord | null = null;
    try {
      now = registeredSource(ctx);
    } catch { /* unreadable: reported as the failure below */ }
    if (!now) return [failed('sessions-source', `${ctx.root} was not registered: ${(e as Error).message}`, exit)];
    return [source, failed('index', (e as Error).message, exit)];
  }
}

function canonical(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}

/** The Claude Code hooks at user scope and <home>/hook-settings.json, as `active-brain install` does. */
export function hooksStep(ctx: SetupContext): Step | StepFailure {
  const bundle = join(packageRoot(), 'dist', 'hook.bundle.cjs');
  if (!existsSync(bundle)) return failed('hooks', `the hook is not built (${bundle} is missing): run \`npm run build\` in ${packageRoot()}, then setup again`, EXIT.ENV);
  let report;
  try {
    report = installHook({ scope: 'user', cwd: ctx.cwd, env: ctx.env, dryRun: ctx.dryRun });
  } catch (e) {
    if (e instanceof SettingsShapeError) return failed('hooks', e.message, EXIT.FAIL);
    throw e;
  }
  const settingsFile = hookSettingsPath(ctx.env);
  const before = existsSync(settingsFile) ? readFileSync(settingsFile, 'utf8') : null;
  const wanted = JSON.stringify(hookSettingsFromConfig(ctx.config, ctx.env));
  const settingsChanged = before === null || canonical(before) !== wanted;
  if (!ctx.dryRun) writeHookSettings(ctx.config, ctx.env);
  const verb = ctx.dryRun ? 'would register' : report.action === 'updated' ? 'updated' : 'registered';
  const parts = [report.changed ? `${verb} in ${report.path}` : `already registered in ${report.path}`];
  if (settingsChanged) parts.push(`${ctx.dryRun ? 'would write' : 'wrote'} ${settingsFile}`);
  for (const d of report.duplicates) parts.push(`warning: also registered in ${d} (it would fire twice: \`active-brain uninstall --project\` there)`);
  for (const p of pluginRegistrations(ctx.env, ctx.cwd)) parts.push(`warning: the Claude Code plugin ${p.id} is enabled too (${p.why}; every offer would fire twice: \`active-brain uninstall\` keeps the plugin, or \`claude plugin uninstall ${p.id}\`)`);
  return ok('hooks', report.changed || settingsChanged, parts.join('; '));
}

/** Codex CLI's hooks file, as `active-brain install --host codex` writes it — only when this
 *  user has Codex (its home, $CODEX_HOME or ~/.codex, exists); otherwise skipped, saying so. */
export function codexHooksStep(ctx: SetupContext): Step | StepFailure {
  const home = codexHomeDir(ctx.env);
  if (!existsSync(home)) return ok('codex-hooks', false, `Codex CLI not found (${home} does not exist): skipped`);
  let report;
  try {
    report = installCodexHook({ cwd: ctx.cwd, env: ctx.env, dryRun: ctx.dryRun });
  } catch (e) {
    if (e instanceof SettingsShapeError) return failed('codex-hooks', e.message, EXIT.FAIL);
    throw e;
  }
  const verb = ctx.dryRun ? 'would register' : report.action === 'updated' ? 'updated' : 'registered';
  return ok('codex-hooks', report.changed, report.changed ? `${verb} in ${report.path}` : `already registered in ${report.path}`);
}

/** Sets indexer.schedule in config.json; returns a note when it changed. */
function setSchedule(ctx: SetupContext, to: IndexScheduler): string {
  if (ctx.config.indexer.schedule === to) return '';
  const r = persistChoices({ 'indexer.schedule': to }, { dryRun: ctx.dryRun });
  ctx.config = { ...ctx.config, indexer: { ...ctx.config.indexer, schedule: to } };
  return r.changed.length ? `; ${ctx.dryRun ? 'would set' : 'set'} indexer.schedule = "${to}" in ${r.file}` : '';
}

/**
 * Where no user service manager answers (no systemd user bus: containers, WSL, SSH without
 * lingering; or a platform without one): the daemon runs detached and runs the scheduled
 * index itself (indexer.schedule = "daemon", daemon/index-schedule.ts). Said as the fallback
 * it is, with what it does not do (start at login).
 */
async function fallbackStep(ctx: SetupContext, why: string): Promise<Step | StepFailure> {
  const every = `every ${ctx.config.indexer.intervalMinutes} min`;
  const note = setSchedule(ctx, 'daemon');
  const head = `fallback: no user service manager (${why})`;
  const limits = 'it does not start at login: run `active-brain start --detach` after a reboot, or `active-brain service install` once a user service manager is available';
  if (ctx.dryRun) {
    // Changed only when it would start a daemon or set the schedule: a running one is left as is.
    const lock = lockState(ctx.env);
    const running = lock.held && lock.pid !== null && lock.pidAlive;
    const daemon = running ? `the daemon runs already (pid ${lock.pid})` : 'would start the daemon detached';
    return ok('service', !running || note !== '', `${head}: ${daemon}, running the scheduled index itself ${every}${note}; ${limits}`);
  }
  try {
    const d = await startDetached([], ctx.env);
    const daemon = d.already ? `the daemon runs already (pid ${d.pid})${note ? ' and takes the schedule over within a cycle' : ''}` : `started the daemon detached (pid ${d.pid})`;
    ctx.daemonStarted = true;
    return ok('service', !d.already || note !== '', `${head}: ${daemon}; it runs the scheduled index itself ${every}${note}; ${limits}`);
  } catch (e) {
    return failed('service', `${head}: the daemon did not start: ${(e as Error).message}`, isAppError(e) ? e.exitCode : EXIT.FAIL);
  }
}

/**
 * `setup --plugin` (what the Claude Code plugin's own set-up runs, ops/plugin-bootstrap.ts):
 * no user services — the plugin's SessionStart starts the daemon at each session — so the
 * daemon runs the scheduled index itself (indexer.schedule = "daemon"), started now.
 */
export async function pluginDaemonStep(ctx: SetupContext): Promise<Step | StepFailure> {
  const note = setSchedule(ctx, 'daemon');
  const head = 'the Claude Code plugin starts the daemon at each session (no user service)';
  const every = `every ${ctx.config.indexer.intervalMinutes} min`;
  if (ctx.dryRun) return ok('service', note !== '', `${head}; it runs the scheduled index itself ${every}${note}`);
  try {
    const d = await startDetached([], ctx.env);
    ctx.daemonStarted = true;
    return ok('service', !d.already || note !== '', `${head}: ${d.already ? `the daemon runs already (pid ${d.pid})` : `started the daemon detached (pid ${d.pid})`}; it runs the scheduled index itself ${every}${note}`);
  } catch (e) {
    return failed('service', `${head}: the daemon did not start: ${(e as Error).message}`, isAppError(e) ? e.exitCode : EXIT.FAIL);
  }
}

/** The daemon and the scheduled index as user services, or the fallback without a manager. */
export async function serviceStep(ctx: SetupContext): Promise<Step | StepFailure> {
  const p = process.platform;
  if (p !== 'linux' && p !== 'darwin') {
    // --no-manage: the user runs things their own way — nothing is started here either.
    if (!ctx.manage) return ok('service', false, `no user service manager on ${p}; not started (--no-manage): run \`active-brain start --detach\` with indexer.schedule = "daemon", or schedule \`active-brain index\` yourself`);
    return fallbackStep(ctx, `none on ${p}`);
  }
  const platform = p as Platform;
  const schedule = `index every ${ctx.config.indexer.intervalMinutes} min`;
  if (ctx.manage) {
    // Asking whether the manager answers writes nothing: a dry run asks too.
    const reach = probeManager(platform);
    if (!reach.reachable) return fallbackStep(ctx, reach.detail);
  }
  const r = installService(platform, { config: ctx.config, dryRun: ctx.dryRun, manage: ctx.manage }, ctx.env);
  const files = r.files.filter((f) => f.changed).map((f) => f.file);
  const what = files.length ? `${ctx.dryRun ? 'would write' : 'wrote'} ${files.join(', ')}` : `already installed (${r.files.map((f) => f.file).join(', ')})`;
  if (ctx.dryRun) {
    const note = ctx.manage ? setSchedule(ctx, 'service') : '';
    return ok('service', r.changed || note !== '', `${what}; ${schedule}${r.wouldRun?.length ? `; would run: ${r.wouldRun.join('; ')}` : ''}${note}`);
  }
  if (!ctx.manage) return ok('service', r.changed, `${what}; ${schedule}; not started (--no-manage)`);
  if (r.unreachable) return fallbackStep(ctx, r.unreachable);
  if (!commandsOk(r.commands)) {
    const bad = r.commands.find((c) => !c.ok && !c.tolerated)!;
    const fix = p === 'linux'
      ? 'is there a user systemd session (`systemctl --user status`; over SSH: `loginctl enable-linger $USER`)? Else run `active-brain start --detach`'
      : 'run `launchctl print gui/$(id -u)` to check the session, else `active-brain start --detach`';
    return failed('service', `${what}; \`${bad.command}\` failed: ${bad.detail}; ${fix}`, EXIT.ENV);
  }
  const note = setSchedule(ctx, 'service');
  ctx.daemonStarted = true;
  return ok('service', r.changed || note !== '', `${what}; ${schedule}; started${note}`);
}

function hooksRegistered(ctx: SetupContext): string {
  const path = settingsPathFor('user', ctx.cwd, ctx.env);
  try {
    const n = existsSync(path) ? countOurs(parseSettingsText(readFileSync(path, 'utf8'), path)) : 0;
    return `${n} hook entr${n === 1 ? 'y' : 'ies'} in ${path}`;
  } catch (e) {
    return `${path}: ${(e as Error).message}`;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Daemon state, store size, hooks registered and the last index run, from the status
 * functions. Fails only when the service was started here and the daemon is not running.
 */
export async function healthStep(ctx: SetupContext, serviceStarted: boolean): Promise<Step | StepFailure> {
  const store = existsSync(ctx.storePath) ? await summarizeStore(ctx.storePath) : { path: ctx.storePath, present: false };
  let d = daemonStatus(ctx.config, store, ctx.env);
  const t0 = Date.now();
  while (serviceStarted && !d.running && Date.now() - t0 < DAEMON_START_WAIT_MS) {
    await sleep(POLL_MS);
    d = daemonStatus(ctx.config, store, ctx.env);
  }
  const daemon = d.running
    ? `daemon running (pid ${d.pid}, ${d.sessions ?? 0} session(s) watched${d.index_schedule ? `, running the scheduled index every ${d.index_schedule.intervalMinutes} min` : ''})`
    : `daemon not running${d.problem ? ` (${d.problem})` : ''}${serviceStarted ? '' : ' — start it with `active-brain start --detach` or the service manager'}`;
  const storeText = !store.present ? `no store yet at ${store.path}`
    : store.error ? `store ${store.path}: ${store.error}`
    : `store ${Math.round((store.bytes ?? 0) / 1024)} KiB, ${store.chunks} chunks, ${store.documents} documents`;
  const last = `last index: ${describeLastRun(lastIndexRun(readIndexLog(ctx.env), ctx.storePath))}`;
  const detail = [daemon, storeText, hooksRegistered(ctx), last].join('; ');
  if (serviceStarted && !d.running) {
    return failed('health', `${detail}. The service did not bring the daemon up within ${DAEMON_START_WAIT_MS / 1000} s: see $ACTIVE_BRAIN_HOME/logs/daemon.out and \`active-brain status\``, EXIT.FAIL);
  }
  return ok('health', false, detail);
}

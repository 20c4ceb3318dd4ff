/**
 * `active-brain doctor`: every set-up check a new user needs, each with pass/fail, what it
 * saw and the fix. Reads the config, the transcripts root, the Claude Code settings files
 * (ops/hook-install-files.ts), Codex CLI's sessions root and hooks file when it is used, the daemon's lock and canary (daemon/status.ts), the store
 * (read-only) and the model; writes only a probe file in the state dir (removed at once).
 * Each check is a small function returning a DoctorCheck; runDoctor runs them in order.
 * JSON keys (DESIGN.md): {"checks": [{"name", "pass", "detail", "fix"}], "pass"}.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { codexHooksPath } from './hook-install-files.js';
import { CODEX_EVENTS } from './hook-install.js';
import { codexRolloutFiles } from '../transcript/codex-tree.js';
import { defaultCodexSessionsRoot, defaultTranscriptsRoot, homeDir, killPath } from '../shared/paths.js';
import { CHANNELS } from '../shared/vocabulary.js';
import { transcriptsRootState, unreadableRootText } from '../shared/transcripts-root.js';
import { daemonStatus, type DaemonStatus } from '../daemon/status.js';
import { managerSchedule, probeManager } from './service.js';
import { summarizeStore } from '../daemon/store-summary.js';
import { isStoreOpenFailure } from '../daemon/store-life.js';
import { inspectOwnDirs, ownDirFix } from '../daemon/own-dirs.js';
import { checkSecrets } from './doctor-secrets.js';
import { displayLocation, storeBackend, storeLocation, storePresent } from '../store/location.js';
import { damagedStoreFix, quickCheck, quickCheckSummary } from '../store/quick-check.js';
import { hookRegistrations, registeredEvents } from './hook-registrations.js';
import { checkWorkers } from './workers-check.js';

export interface DoctorCheck {
  name: string;
  pass: boolean;
  /** What the check saw. */
  detail: string;
  /** What to do when it fails ('' when it passes). */
  fix: string;
}

export interface DoctorReport {
  checks: DoctorCheck[];
  pass: boolean;
}

/** Directories walked under the transcripts root when counting sessions (bounded work). */
const MAX_PROJECT_DIRS = 10_000;

const ok = (name: string, detail: string): DoctorCheck => ({ name, pass: true, detail, fix: '' });
const bad = (name: string, detail: string, fix: string): DoctorCheck => ({ name, pass: false, detail, fix });

/** Main-lane sessions under a Claude Code projects root: `<root>/<project>/<session>.jsonl`. */
export function countSessions(root: string): { sessions: number; newest: number | null } {
  let sessions = 0;
  let newest: number | null = null;
  let dirs: string[];
  try {
    dirs = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).slice(0, MAX_PROJECT_DIRS);
  } catch {
    return { sessions: 0, newest: null };
  }
  for (const d of dirs) {
    let names: string[];
    try {
      names = readdirSync(join(root, d));
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.endsWith('.jsonl')) continue;
      sessions++;
      try {
        const m = statSync(join(root, d, n)).mtimeMs;
        if (newest === null || m > newest) newest = m;
      } catch { /* vanished */ }
    }
  }
  return { sessions, newest };
}

export function checkTranscriptsRoot(config: Config, env: NodeJS.ProcessEnv): DoctorCheck {
  const root = config.transcriptsRoot ?? defaultTranscriptsRoot(env);
  const name = 'transcripts-root';
  const fix = `point ACTIVE_BRAIN_TRANSCRIPTS or "transcriptsRoot" in ${join(homeDir(env), 'config.json')} at the folder Claude Code writes sessions to (default ~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects)`;
  const state = transcriptsRootState(root);
  if (state.state === 'missing') return bad(name, `${root} does not exist`, fix);
  if (state.state === 'unreadable') {
    const text = unreadableRootText(root, state.code);
    const cut = text.indexOf('): ') + 1;
    return bad(name, text.slice(0, cut), text.slice(cut + 2));
  }
  const { sessions, newest } = countSessions(root);
  if (sessions === 0) return bad(name, `${root} exists but holds no <project>/<session>.jsonl transcripts`, fix);
  const when = newest === null ? '' : `, newest ${new Date(newest).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
  return ok(name, `${root}: ${sessions} session(s)${when}`);
}

export function checkHooks(env: NodeJS.ProcessEnv, cwd: string): DoctorCheck[] {
  const regs = hookRegistrations(env, cwd);
  return regs.map((r) => {
    const name = `hook:${r.event}`;
    const where = [...r.files, ...r.plugins.map((p) => `plugin ${p.id} (${p.why})`)];
    if (where.length === 0) return bad(name, `not registered in ${r.looked.join(' or ')}, and the active-brain plugin is not enabled`, 'run "active-brain install" (or "active-brain setup"), or install the Claude Code plugin (docs/PLUGIN.md)');
    if (where.length > 1) {
      const fix = r.plugins.length > 0
        ? `keep one: "active-brain uninstall" (and "active-brain uninstall --project") removes the settings-file hook and keeps the plugin; or "claude plugin disable ${r.plugins[0].id}"`
        : 'keep one: "active-brain uninstall --project" (or uninstall at user scope)';
      return bad(name, `registered in ${where.length} places (${where.join(', ')}): every offer would fire twice`, fix);
    }
    return ok(name, `registered ${r.files.length ? 'in' : 'by the'} ${where[0]}`);
  });
}

/**
 * Codex CLI, when this user has it (its sessions root exists): how many rollouts the daemon
 * tails there, and whether Codex's hooks file registers our hook for every event Codex gets
 * (ops/hook-install.ts CODEX_EVENTS). A user without Codex passes with "not used".
 */
export function checkCodex(config: Config, env: NodeJS.ProcessEnv): DoctorCheck {
  const name = 'codex';
  const root = config.codexSessionsRoot ?? defaultCodexSessionsRoot(env);
  if (!existsSync(root)) return ok(name, `not used (${root} does not exist)`);
  const rollouts = codexRolloutFiles(root).length;
  const hooksPath = codexHooksPath(env);
  let events = new Set<string>();
  try {
    events = registeredEvents(JSON.parse(readFileSync(hooksPath, 'utf8')));
  } catch { /* absent or unreadable: nothing registered */ }
  const missing = CODEX_EVENTS.filter((e) => !events.has(e));
  const seen = `${root}: ${rollouts} rollout(s)`;
  if (missing.length) return bad(name, `${seen}; ${hooksPath} does not register the hook for ${missing.join(', ')}`, 'run "active-brain install --host codex" (docs/CODEX.md)');
  return ok(name, `${seen}; hook registered in ${hooksPath} (${CODEX_EVENTS.join(', ')})`);
}

/** Does a user service manager answer here (systemd user bus / launchd)? Asked only when needed. */
export function managerAnswers(): boolean {
  return (process.platform === 'linux' || process.platform === 'darwin') && probeManager(process.platform).reachable;
}

/** `manager`: whether a user service manager answers (asked only when the daemon is down). */
export function checkDaemon(status: ReturnType<typeof daemonStatus>, manager: () => boolean = managerAnswers): DoctorCheck {
  const name = 'daemon';
  const h = status.store_health;
  if (status.running && h?.state === 'down') {
    // The canary's store health (daemon/store-health.ts): alive, but silent until the server answers.
    return bad(name, `running (pid ${status.pid}), but the team store ${h.location} is unreachable since ${new Date(h.since).toISOString()} — no offers meanwhile (${h.message})`, 'start the PostgreSQL server (or fix the network): the daemon reconnects by itself within a minute');
  }
  if (status.running && isStoreOpenFailure(status.last_error)) {
    // Alive but silent: it could not open the store (daemon/store-life.ts retries when the file changes).
    return bad(name, `running (pid ${status.pid}), but silent: ${status.last_error}`, 'rebuild or replace the store ("active-brain doctor" store check says how): the daemon opens it again by itself within a cycle of the file changing');
  }
  if (status.running) return ok(name, `running (pid ${status.pid}), canary ${status.canary_age_s} s old, ${status.sessions ?? 0} session(s) watched`);
  const why = status.problem ? ` (${status.problem})` : '';
  const fix = manager()
    ? 'start it: "active-brain service install" (runs at login) or "active-brain start --detach"'
    : 'start it: "active-brain start --detach" (no user service manager answers here, so nothing starts it at login: run it again after a reboot)';
  return bad(name, `not running${why}`, fix);
}

/**
 * The scheduled index runs: the service manager's timer is active (systemd timer / launchd
 * agent), or the running daemon runs it itself (indexer.schedule = "daemon", its canary says
 * so). Without either, new sessions never reach the store and never become Past fixes.
 * `timer` asks the manager (null: no manager on this platform); it is only asked when the
 * daemon does not run the schedule.
 */
export function checkSchedule(config: Config, status: Pick<DaemonStatus, 'running' | 'index_schedule'>, timer: () => { active: boolean; detail: string } | null): DoctorCheck {
  const name = 'schedule';
  const every = `every ${config.indexer.intervalMinutes} min`;
  const own = status.running ? status.index_schedule : null;
  if (own) {
    const next = own.runningPid ? `a run under way (pid ${own.runningPid})` : own.nextRunAt !== null ? `next in ${Math.max(0, Math.round((own.nextRunAt - Date.now()) / 60_000))} min` : '';
    return ok(name, `the daemon runs \`active-brain index\` ${every} (indexer.schedule = "daemon")${next ? `; ${next}` : ''}`);
  }
  const t = timer();
  if (t?.active) return ok(name, `${t.detail}: \`active-brain index\` ${every}`);
  const manager = t ? t.detail : `no user service manager on ${process.platform}`;
  if (config.indexer.schedule === 'daemon') {
    return bad(name, `indexer.schedule is "daemon" but the daemon is not running (${manager}): new sessions are not indexed`, 'start the daemon: "active-brain start --detach" (it runs the scheduled index itself)');
  }
  return bad(name, `${manager}, and the daemon does not run it either (indexer.schedule = "service"): new sessions are not indexed`,
    'run "active-brain setup" (it installs the timer, or where no user service manager answers has the daemon run the schedule), or "active-brain service install"');
}

export function checkKill(env: NodeJS.ProcessEnv): DoctorCheck {
  return existsSync(killPath(env))
    ? bad('kill-switch', `on (${killPath(env)}): nothing is observed or printed`, 'run "active-brain unkill" when you want it back')
    : ok('kill-switch', 'off');
}

export function checkStateDir(env: NodeJS.ProcessEnv): DoctorCheck {
  const home = homeDir(env);
  const probe = join(home, `.doctor-probe-${process.pid}`);
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(probe, 'ok', { mode: 0o600 });
    unlinkSync(probe);
  } catch (e) {
    return bad('state-dir', `${home} is not writable (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, 'set ACTIVE_BRAIN_HOME to a folder you own, or fix its permissions');
  }
  // Its own folders (daemon/own-dirs.ts): the hook trusts nothing in one that is a symlink,
  // another user's, or writable by others; `start` re-tightens them to 0700.
  const wrong = inspectOwnDirs(env).filter((d) => d.verdict !== 'ok' && d.verdict !== 'missing');
  if (wrong.length) {
    const what = wrong.map((d) => `${d.path} ${typeof d.verdict === 'object' ? d.verdict.refuse : `is ${(d.mode ?? 0).toString(8)}, not 700`}`);
    return bad('state-dir', what.join('; '), wrong.map((d) => ownDirFix(d, env)).join('; '));
  }
  return ok('state-dir', `${home} is writable; its folders are yours alone (0700)`);
}

export async function checkStore(config: Config, env: NodeJS.ProcessEnv): Promise<{ check: DoctorCheck; model: string | null; dim: number | null }> {
  const location = storeLocation(config, env);
  const team = storeBackend(location) === 'postgres';
  const path = team ? `team store (PostgreSQL) ${displayLocation(location)}` : location;
  const name = 'store';
  const fix = 'index your notes and past sessions: "active-brain setup", or "active-brain index add <path> --region <name>"';
  if (!storePresent(location)) return { check: bad(name, `no knowledge store at ${path}`, fix), model: null, dim: null };
  const s = await summarizeStore(location);
  if (s.error) {
    const repair = team ? 'fix store.url (or ACTIVE_BRAIN_STORE_URL) as the message says' : quickCheck(location).state === 'damaged' ? damagedStoreFix(location) : 'run "active-brain index" once (it migrates or rebuilds what it can), or move the file away and re-index';
    return { check: bad(name, `${path} cannot be read: ${s.error}`, repair), model: null, dim: null };
  }
  // SQLite's own check of every page, bounded (store/quick-check.ts): two damaged pages still
  // open and count, and `index` would write into them.
  const qc = team ? null : quickCheck(location);
  if (qc?.state === 'damaged') return { check: bad(name, `${path} is damaged: SQLite's quick_check says ${quickCheckSummary(qc)}`, damagedStoreFix(location)), model: null, dim: null };
  if (!s.chunks) return { check: bad(name, `${path} holds no chunks`, fix), model: null, dim: null };
  const checked = qc?.state === 'ok' ? `; quick_check ok (${qc.ms} ms)` : qc?.state === 'unknown' ? `; quick_check not done: ${qc.reason}` : '';
  return { check: ok(name, `${path}: ${s.chunks} chunk(s) in ${s.regions} region(s), ${s.documents} document(s)${checked}`), model: s.model ?? null, dim: s.dim ?? null };
}

export async function checkModel(config: Config, env: NodeJS.ProcessEnv, store: { model: string | null; dim: number | null }): Promise<DoctorCheck> {
  const name = 'model';
  let embedder;
  try {
    const { createEmbedder } = await import('../embed/embedder.js');
    embedder = await createEmbedder(config.embedding, env);
  } catch (e) {
    return bad(name, `the embedding model does not load: ${(e as Error).message}`, 'set ACTIVE_BRAIN_MODEL_PATH to a local transformers.js model folder (offline: `npm run model:offline` builds one and prints its path)');
  }
  try {
    const id = embedder.modelId;
    const dim = embedder.dim;
    if (store.model && (store.model !== id || store.dim !== dim)) {
      return bad(name, `loads (${id}, ${dim}-d) but the store was built with ${store.model} (${store.dim}-d)`, 're-index with this model: "active-brain index --rebuild", or configure the model the store was built with');
    }
    return ok(name, `loads (${id}, ${dim}-d)${store.model ? ', matches the store' : ''}`);
  } finally {
    await embedder.dispose();
  }
}

/** Each mode's rollout state per channel (informational: a soaking mode is not a failure). */
export function checkModes(config: Config): DoctorCheck {
  const parts = Object.entries(config.modes).map(([name, m]) => {
    const states = CHANNELS.map((c) => `${c} ${c === 'prompt' ? m.state : m.tool.state}`);
    return `${name}: ${states.join(', ')}`;
  });
  return ok('modes', parts.join('; ') || 'no modes');
}

/** The `config` check first: config.json as loaded (config/load.ts loadConfigOrDefaults). */
export function withConfigCheck(r: DoctorReport, file: string, problem: string | null): DoctorReport {
  const check = problem
    ? bad('config', problem, `fix ${file} (or move it away) — until then the daemon keeps the config it started with, the hook its hook-settings.json, every other command refuses to run, and these checks use the defaults`)
    : ok('config', existsSync(file) ? `${file} reads and checks` : `no ${file}: the defaults apply`);
  const checks = [check, ...r.checks];
  return { checks, pass: checks.every((c) => c.pass) };
}

export async function runDoctor(config: Config, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<DoctorReport> {
  const checks: DoctorCheck[] = [];
  checks.push(checkTranscriptsRoot(config, env));
  checks.push(...checkHooks(env, cwd));
  checks.push(checkCodex(config, env));
  const storeCheck = await checkStore(config, env);
  const status = daemonStatus(config, { path: displayLocation(storeLocation(config, env)), present: storePresent(storeLocation(config, env)) }, env);
  checks.push(checkDaemon(status));
  checks.push(checkSchedule(config, status, () => (process.platform === 'linux' || process.platform === 'darwin' ? managerSchedule(process.platform) : null)));
  checks.push(storeCheck.check);
  checks.push(checkSecrets(config, env));
  checks.push(await checkModel(config, env, storeCheck));
  checks.push(checkStateDir(env));
  checks.push(checkKill(env));
  checks.push(checkModes(config));
  checks.push(checkWorkers(config, env));
  return { checks, pass: checks.every((c) => c.pass) };
}

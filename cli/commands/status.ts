/**
 * `active-brain status [--json]`: the truth about the daemon (lock held + pid alive + canary
 * fresh, via daemon/status.ts — never the pid file alone), the kill switch, the modes and
 * their rollout state per channel (ops/channel-state.ts: the same config `soak report` and
 * `enable` read), the knowledge store (opened read-only) and the model.
 */
import { parseFlags, printJson, EXIT, type Command } from '../command.js';
import { loadConfigOrDefaults } from '../../config/load.js';
import { homeDir } from '../../shared/paths.js';
import { daemonStatus, type DaemonStatus, type StoreSummary } from '../../daemon/status.js';
import { summarizeStore } from '../../daemon/store-summary.js';
import { storeRedaction } from '../../store/scan-location.js';
import { createRedactor } from '../../shared/redact.js';
import { displayLocation, storeBackend, storeLocation, storePresent } from '../../store/location.js';
import { commonState, formatStates, rolloutStates } from '../../ops/channel-state.js';
import type { Channel, ModeState } from '../../shared/vocabulary.js';
import { recentLine, workersSummary, type WorkersSummary } from '../../ops/workers-check.js';

/** daemon/status.ts reports the prompt channel's state per mode; status adds every channel. */
type Status = Omit<DaemonStatus, 'modes' | 'mode'> & {
  mode: ModeState | 'mixed' | null;
  modes: Record<string, DaemonStatus['modes'][string] & { channels: Record<Channel, ModeState> }>;
};

function withChannels(s: DaemonStatus, states: Record<string, Record<Channel, ModeState>>): Status {
  const modes: Status['modes'] = {};
  for (const [name, m] of Object.entries(s.modes)) modes[name] = { ...m, channels: states[name] };
  // The common state across every channel of every mode: "soak" only when nothing is live.
  return { ...s, mode: commonState(states), modes };
}

/** The model line: what is configured, and — when it cannot be had or is not the one the
 *  store was built with — what to do. */
export function modelLine(m: DaemonStatus['model']): string {
  const shown = m.localPath && m.id ? `${m.id} (local folder ${m.localPath})` : m.configured;
  if (m.problem) return `${shown} — does not resolve: ${m.problem}`;
  if (m.store && m.id && m.store !== m.id) {
    return `${shown} — the store was built with ${m.store}: re-index with "active-brain index --rebuild", or configure that model (embedding.localModelPath / ACTIVE_BRAIN_MODEL_PATH, embedding.model)`;
  }
  return `${shown}${m.store ? ', matches the store' : ''}`;
}

function human(s: Status, workers: WorkersSummary): string {
  const lines: string[] = [];
  if (s.running) {
    lines.push(`daemon:   running (pid ${s.pid}, up ${s.uptime_s} s, canary ${s.canary_age_s} s old, ${s.sessions} session(s) watched)`);
  } else {
    const why = s.problem ? ` — ${s.problem}${s.pid ? ` (pid ${s.pid})` : ''}` : '';
    // With the kill switch on, `start` refuses: the first thing to do is to lift it.
    const next = s.killed ? 'The kill switch is on: "active-brain unkill", then "active-brain start --detach".' : 'Start it with "active-brain start --detach".';
    lines.push(`daemon:   not running${why}. ${next}`);
  }
  const sch = s.index_schedule;
  if (sch) {
    const when = sch.runningPid ? `running now (pid ${sch.runningPid})` : sch.nextRunAt ? `next in ${Math.max(0, Math.round((sch.nextRunAt - Date.now()) / 60_000))} min` : '';
    lines.push(`schedule: the daemon runs \`active-brain index\` every ${sch.intervalMinutes} min (indexer.schedule = "daemon")${when ? `; ${when}` : ''}`);
  }
  lines.push(`sessions: ${s.transcripts_root.path}${s.transcripts_root.exists ? '' : ' — does not exist: set ACTIVE_BRAIN_TRANSCRIPTS or "transcriptsRoot" to where Claude Code writes sessions'}`);
  if (s.codex_sessions_root.exists) lines.push(`codex:    ${s.codex_sessions_root.path} (Codex CLI rollouts, tailed too)`);
  lines.push(`kill:     ${s.killed ? 'KILL file present — no offers (remove with "active-brain unkill")' : 'off'}`);
  const modes = Object.entries(s.modes).map(([n, m]) => `${n} (${formatStates(m.channels)})`).join(', ');
  lines.push(`modes:    ${modes || '(none)'}`);
  lines.push(`workers:  never offered to: ${workers.rules.join('; ')}${workers.hook === 'different' ? ' — hook-settings.json holds another rule: run "active-brain install"' : ''}`);
  lines.push(`          ${recentLine(workers.recent)}${workers.recent.offeredToWorkersCount ? ` — the hook OFFERED to ${workers.recent.offeredToWorkersCount} of them (run "active-brain doctor")` : ''}`);
  const st = s.store;
  if (!st.present) lines.push(`store:    none at ${st.path} (build one with "active-brain index add <path> --region <name>")`);
  else if (st.error) lines.push(`store:    ${st.path}: ${st.error}`);
  else lines.push(`store:    ${st.backend === 'postgres' ? 'team store (PostgreSQL) ' : ''}${st.path}: ${st.chunks} chunks, ${st.regions} region(s), ${Math.round((st.bytes ?? 0) / 1024)} KiB, model ${st.model ?? '(none yet)'}`);
  if (st.redaction === 'unscrubbed' || st.redaction === 'other-rules') lines.push(`store:    holds text indexed ${st.redaction === 'unscrubbed' ? 'before redaction' : 'with other redaction rules'}: run "active-brain index" (it re-redacts every document; "active-brain store scan" lists findings)`);
  lines.push(`model:    ${modelLine(s.model)}`);
  const e = s.embedder;
  if (e) {
    lines.push(
      e.state === 'ok'
        ? `embedder: server ${e.url} answering`
        : `embedder: server ${e.url} UNAVAILABLE for ${Math.round((Date.now() - e.since) / 1000)} s — no decisions meanwhile (${e.message}); retrying${e.nextRetryAt ? ` in ${Math.max(0, Math.round((e.nextRetryAt - Date.now()) / 1000))} s` : ''}`,
    );
  }
  const h = s.store_health;
  if (h && h.state === 'down') {
    lines.push(
      `store:    daemon: team store ${h.location} UNREACHABLE since ${new Date(h.since).toISOString()} (${Math.round((Date.now() - h.since) / 1000)} s) — no offers meanwhile (${h.message}); reconnecting${h.nextRetryAt ? ` in ${Math.max(0, Math.round((h.nextRetryAt - Date.now()) / 1000))} s` : ''}, nothing to do once the server is back`,
    );
  }
  if (s.last_error) lines.push(`last error: ${s.last_error}`);
  return lines.join('\n');
}

export const command: Command = {
  name: 'status',
  summary: 'honest state of daemon, store, model, mode, kill',
  help: `usage: active-brain status [--json] [--set key.path=value ...]

Reports whether the daemon is really running — the lock is held, its pid is alive and the
canary was rewritten within 3 cycles — plus uptime, sessions watched, the kill switch,
every mode's rollout state per channel (prompt: at the prompt, tool: at a tool call), the
knowledge store and the model, and the last error. With an embedding server (embedding.url),
whether the daemon reaches it ("embedder": state ok or unavailable, since, message,
nextRetryAt); while unavailable the daemon decides nothing. "store_health" is the store as the
daemon sees it (state ok or down, location, since, message, failures, nextRetryAt): a team store
whose server went away is down, offers are silent and the daemon reconnects (1 s doubling to 60 s).
A config.json that does not load is said first (the rest then shows the defaults where it
would have set something; the daemon keeps the config it started with).
--json prints one object: {"config_problem" (null when config.json loads),"running","pid","canary_age_s","sessions","mode","killed",
"transcripts_root":{"path","exists"},"codex_sessions_root":{"path","exists"},
"store":{…,"backend":"sqlite"|"postgres","redaction":"scrubbed"|"unscrubbed"|"other-rules"|null},"model":{…},"embedder","store_health","uptime_s","index_schedule","last_error","problem","lock":{…},
"modes":{"<name>":{"state","cwdGlobs","channels":{"prompt","tool"}}},
"workers":{"entrypoints","unattended","cwdGlobs","envMarker","rules","hook","recent"}} — "state" is the
prompt channel's; "mode" is the state every channel of every mode shares, or "mixed".
"workers" says which sessions are never offered to and why (the one worker rule the daemon
and the hook share: docs/HOOK.md "Session kinds"); "hook" is "same" when hook-settings.json
holds the same rule, "different" when it would decide otherwise (run "active-brain install");
"recent" counts the sessions each path treated as workers in the last 7 days, by reason, and
names any the hook offered to although the daemon treats them as workers.
Exit 0 when the daemon is running, 1 when it is not.`,
  async run(argv) {
    const { values } = parseFlags(argv, {}, false);
    // A broken config.json is said first, not fatal: whether the daemon is up is the point.
    const { config, problem } = loadConfigOrDefaults({ flags: values.set });
    const storePath = storeLocation(config);
    const shown = displayLocation(storePath);
    const store: StoreSummary = storePresent(storePath)
      ? { ...(await summarizeStore(storePath)), path: shown, backend: storeBackend(storePath), redaction: storeRedaction(storePath, createRedactor(config.redact)) }
      : { path: shown, present: false, backend: storeBackend(storePath) };
    const s = withChannels(daemonStatus(config, store), rolloutStates(config));
    const workers = workersSummary(config);
    if (values.json) printJson({ home: homeDir(), config_problem: problem, ...s, workers });
    else process.stdout.write((problem ? `config:   BROKEN — ${problem} The lines below use the defaults where config.json would have set something.\n` : '') + human(s, workers) + '\n');
    return s.running ? EXIT.OK : EXIT.FAIL;
  },
};

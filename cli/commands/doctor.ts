/**
 * `active-brain doctor [--json]`: every set-up check (ops/doctor.ts) with what it saw and its
 * fix. Exit 0 when all pass, 1 when any fails (a broken config.json is a failing check, the
 * rest then runs on the defaults), 2 on a usage error or a bad --set / environment value.
 */
import { parseFlags, printJson, EXIT, type Command } from '../command.js';
import { loadConfigOrDefaults } from '../../config/load.js';
import { runDoctor, withConfigCheck, type DoctorReport } from '../../ops/doctor.js';
import { sanitizeLine } from '../../shared/escape.js';

export function doctorText(r: DoctorReport): string {
  const lines = r.checks.map((c) => {
    const head = `${c.pass ? 'ok  ' : 'FAIL'}  ${c.name.padEnd(28)} ${sanitizeLine(c.detail)}`;
    return c.pass ? head : `${head}\n      fix: ${sanitizeLine(c.fix)}`;
  });
  const failed = r.checks.filter((c) => !c.pass).length;
  lines.push('', failed ? `${failed} check(s) failed.` : 'every check passed.');
  return lines.join('\n');
}

export const command: Command = {
  name: 'doctor',
  summary: 'check the set-up: config, transcripts, hooks, daemon, schedule, store, model, state dir, kill switch, modes, workers',
  help: `usage: active-brain doctor [--json] [--set key.path=value ...]

Runs every set-up check and prints what it saw and, for a failure, the fix:
  config             $ACTIVE_BRAIN_HOME/config.json reads and checks (when it does not, the
                     other checks run on the defaults and say what they can)
  transcripts-root   the folder Claude Code writes sessions to exists and holds sessions
  hook:<event>       the hook is registered for UserPromptSubmit and PostToolUseFailure, in
                     exactly one place: a settings file or the enabled active-brain Claude
                     Code plugin (two would fire twice)
  codex              Codex CLI, when its sessions root exists: the rollouts there and
                     Codex's hooks.json registering the hook ("not used" without Codex)
  daemon             running, with a fresh canary, and not silent for want of a store (a team
                     store reachable; a store file it could open)
  schedule           the scheduled index runs: the service manager's timer is active, or the
                     running daemon runs it itself (indexer.schedule = "daemon")
  store              the knowledge store is readable, not empty, and passes SQLite's
                     PRAGMA quick_check (files up to 2 GiB)
  secrets            no secret in the store's text (docs/REDACTION.md; store scan lists them)
  model              the embedding model loads and matches the store
  state-dir          $ACTIVE_BRAIN_HOME is writable; it and cache/, fixes/, logs/, hook-state/
                     are this user's alone (0700, no symlinks)
  kill-switch        off
  modes              each mode's rollout state per channel (prompt, tool)
  workers            which sessions are never offered to (the worker rule); the hook holds the
                     same rule, and offered to none of the daemon's worker sessions (7 days)
--json prints {"checks": [{"name", "pass", "detail", "fix"}], "pass"}.
Exit 0 when every check passes, 1 when one fails (a broken config.json included), 2 on a usage
error or a bad --set / environment value.`,
  async run(argv) {
    const { values } = parseFlags(argv, {}, false);
    // A broken config.json is a failing check, not a refusal: the rest runs on the defaults.
    const { config, problem, file } = loadConfigOrDefaults({ flags: values.set });
    const report = withConfigCheck(await runDoctor(config), file, problem);
    if (values.json) printJson(report);
    else process.stdout.write(doctorText(report) + '\n');
    return report.pass ? EXIT.OK : EXIT.FAIL;
  },
};

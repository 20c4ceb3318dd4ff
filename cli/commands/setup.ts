/**
 * `active-brain setup [--dry-run] [--json]`: a new user's whole set-up in one idempotent
 * command — the model, the transcripts root as a `transcripts` source in region `sessions`,
 * its first index (progress bar on a TTY), the Claude Code hooks, the daemon and the scheduled
 * index as user services, and a health summary. Steps in cli/setup-steps.ts; this file runs
 * them in order, stops at the first step the rest depends on, and prints.
 */
import { parseFlags, printJson, EXIT, isTty, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { codexHooksStep, configStep, healthStep, hooksStep, modelStep, pluginDaemonStep, serviceStep, setupContext, sourceAndIndexSteps, type Step, type StepFailure } from '../setup-steps.js';

const isFailure = (s: Step | StepFailure): s is StepFailure => 'exit' in s;

function line(s: Step): string {
  const mark = !s.ok ? 'FAIL   ' : s.changed ? 'changed' : 'done   ';
  return `${mark} ${s.name.padEnd(15)} ${s.detail}`;
}

export const command: Command = {
  name: 'setup',
  summary: 'one-command set-up: sessions source, index, hooks, service + schedule',
  help: `usage: active-brain setup [--dry-run] [--json] [--no-manage] [--plugin] [--set key.path=value ...]

Sets active-brain up for this user, in order; every step is idempotent and says what it
changed or that it was already done, so running it again is safe:
  model            the embedding model loads (exit 3 when it cannot: build the offline one
                   with \`npm run model:offline\` and set ACTIVE_BRAIN_MODEL_PATH); a dry
                   run says whether it is cached, or would be downloaded (and whether it can)
  config           what this set-up uses, when it came from the environment or --set — the
                   model folder (ACTIVE_BRAIN_MODEL_PATH), the transcript roots, the store —
                   and the transcripts root, saved in $ACTIVE_BRAIN_HOME/config.json: a new
                   shell, the daemon, the services and the hook then agree without them
  sessions-source  the transcripts root (transcriptsRoot / ACTIVE_BRAIN_TRANSCRIPTS, default
                   ~/.claude/projects) registered as a transcripts source in region
                   "sessions" (left alone when registered already, in any region)
  index            an incremental index of it (progress bar on a terminal), recorded in
                   logs/index.jsonl like every index run
  hooks            the Claude Code hooks at user scope and hook-settings.json, exactly as
                   \`active-brain install\` does
  codex-hooks      Codex CLI's hooks file, as \`active-brain install --host codex\` does — only
                   when Codex is there ($CODEX_HOME or ~/.codex exists); skipped otherwise
  service          the daemon and the scheduled index (every indexer.intervalMinutes) as
                   user services, as \`active-brain service install\` does. Where no user
                   service manager answers (no systemd user bus: containers, WSL, SSH
                   without lingering), the fallback, said as such: the daemon starts
                   detached and runs the scheduled index itself (indexer.schedule =
                   "daemon" in config.json); it does not start at login
  health           daemon state, store size, hooks registered, the last index run
It stops when the model cannot load or the store cannot be read (later steps need them);
a failed index (another indexer running, some documents not stored) is reported and the
hooks and service are installed anyway.

--dry-run    change nothing: each step reads and says what it would do (no file is written)
--no-manage  write the service files but do not call systemctl/launchctl (you run them
             your own way: nothing is started, no fallback)
--plugin     for the Claude Code plugin (its background set-up runs this): no hooks, no
             codex-hooks (the plugin registers the hooks), no user services (the plugin
             starts the daemon at each session): the daemon is started now and runs the
             scheduled index itself (indexer.schedule = "daemon")
--json       {"steps":[{"name","changed","detail","ok"}],"pass"}
Exit codes: 0 every step done · 1 a step failed (settings file not valid JSON, some
documents not indexed, daemon did not come up) · 2 bad flags or config · 3 environment
(model cannot load, store unreadable, the service manager answered but failed).`,
  async run(argv) {
    const { values } = parseFlags(argv, { 'dry-run': { type: 'boolean' }, 'no-manage': { type: 'boolean' }, plugin: { type: 'boolean' } }, false);
    const { config, sources } = loadConfig({ flags: values.set });
    const json = Boolean(values.json);
    const ctx = setupContext(config, { sources, dryRun: Boolean(values['dry-run']), manage: !values['no-manage'], progress: !json && isTty() });
    const steps: Step[] = [];
    let exit: number = EXIT.OK;
    const take = (s: Step | StepFailure): boolean => {
      const step = isFailure(s) ? s.step : s;
      steps.push(step);
      if (!json) process.stdout.write(line(step) + '\n');
      if (isFailure(s) && exit === EXIT.OK) exit = s.exit;
      return !isFailure(s);
    };
    try {
      if (take(await modelStep(ctx))) {
        take(configStep(ctx));
        const [source, index] = await sourceAndIndexSteps(ctx);
        // An index that failed (busy, some documents) still leaves a usable set-up; a store
        // that cannot be read does not.
        if (take(source)) {
          if (index) take(index);
          if (!values.plugin) {
            take(hooksStep(ctx));
            take(codexHooksStep(ctx));
          }
          const service = await (values.plugin ? pluginDaemonStep(ctx) : serviceStep(ctx));
          take(service);
          take(await healthStep(ctx, Boolean(ctx.daemonStarted) && !ctx.dryRun));
        }
      }
    } finally {
      await ctx.embedder?.dispose();
    }
    const pass = steps.every((s) => s.ok);
    if (json) printJson({ steps, pass, dryRun: ctx.dryRun });
    else process.stdout.write(pass ? (ctx.dryRun ? 'dry run: nothing was changed.\n' : 'set up.\n') : 'setup is not complete: fix the failing step above and run `active-brain setup` again (done steps are skipped).\n');
    return exit;
  },
};

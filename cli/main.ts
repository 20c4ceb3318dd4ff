/**
 * `active-brain` entry point: dispatches to one module per command (cli/commands/*.ts,
 * loaded lazily so `active-brain status` does not load the model or SQLite it doesn't need).
 */
import { EXIT, type Command } from './command.js';
import { isAppError } from '../shared/errors.js';
import { closest } from '../shared/suggest.js';

const COMMANDS: Record<string, () => Promise<{ command: Command }>> = {
  start: () => import('./commands/start.js'),
  stop: () => import('./commands/stop.js'),
  status: () => import('./commands/status.js'),
  index: () => import('./commands/index-cmd.js'),
  search: () => import('./commands/search.js'),
  recall: () => import('./commands/recall.js'),
  install: () => import('./commands/install.js'),
  uninstall: () => import('./commands/uninstall.js'),
  service: () => import('./commands/service.js'),
  setup: () => import('./commands/setup.js'),
  kill: () => import('./commands/kill.js'),
  unkill: () => import('./commands/unkill.js'),
  soak: () => import('./commands/soak.js'),
  label: () => import('./commands/label.js'),
  enable: () => import('./commands/enable.js'),
  disable: () => import('./commands/disable.js'),
  mcp: () => import('./commands/mcp.js'),
  replay: () => import('./commands/replay.js'),
  eval: () => import('./commands/eval.js'),
  config: () => import('./commands/config.js'),
  doctor: () => import('./commands/doctor.js'),
  report: () => import('./commands/report.js'),
  backtest: () => import('./commands/backtest.js'),
  store: () => import('./commands/store.js'),
};

const USAGE_ORDER = Object.keys(COMMANDS);

async function overview(): Promise<string> {
  const lines = ['usage: active-brain <command> [options]   (active-brain <command> --help for details)', ''];
  for (const name of USAGE_ORDER) {
    try {
      const { command } = await COMMANDS[name]();
      lines.push(`  ${name.padEnd(10)} ${command.summary}`);
    } catch {
      lines.push(`  ${name.padEnd(10)} (unavailable in this build)`);
    }
  }
  lines.push('', 'Environment: ACTIVE_BRAIN_HOME (state dir), ACTIVE_BRAIN_TRANSCRIPTS, ACTIVE_BRAIN_MODEL_PATH.');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write((await overview()) + '\n');
    return EXIT.OK; // bare `active-brain` asks what there is: the overview is the answer
  }
  if (name === '--version' || name === '-v') {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(pkg.version + '\n');
    return EXIT.OK;
  }
  const load = COMMANDS[name];
  if (!load) {
    const near = closest(name, USAGE_ORDER);
    const hint = near ? ` Did you mean "active-brain ${near}"?` : '';
    process.stderr.write(`active-brain: unknown command "${name}".${hint} Run "active-brain --help" for the list.\n`);
    return EXIT.USAGE;
  }
  const { command } = await load();
  if ((rest.includes('--help') || rest.includes('-h')) && !command.ownHelp) {
    process.stdout.write(command.help.trimEnd() + '\n');
    return EXIT.OK;
  }
  return command.run(rest);
}

// `active-brain … | head` closes stdout early: that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (isAppError(e)) {
      process.stderr.write(`active-brain: ${e.message}\n`);
      process.exitCode = e.exitCode;
    } else {
      process.stderr.write(`active-brain: unexpected error: ${(e as Error)?.stack ?? String(e)}\n`);
      process.exitCode = EXIT.FAIL;
    }
  },
);

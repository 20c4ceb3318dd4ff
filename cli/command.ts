/**
 * The shape of a CLI command module and the helpers every command shares: flag parsing
 * with --help/--json/--set, user errors with meaningful exit codes, and JSON output.
 *
 * Exit codes: 0 ok · 1 the thing asked for failed or does not hold (e.g. gate fails,
 * unknown handle, daemon already running) · 2 usage or config error · 3 environment
 * problem (model missing, store unreadable, permission denied).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { EXIT, UserError } from '../shared/errors.js';
import { closest } from '../shared/suggest.js';

// Exit codes, user errors and the terminal check live below every folder that needs them.
export { EXIT, UserError } from '../shared/errors.js';
export { isTty } from '../shared/terminal.js';

export interface Command {
  name: string;
  summary: string;
  /** Full --help text (usage line first). */
  help: string;
  /** Subcommand dispatchers (e.g. `eval`) print their subcommands' own --help: main leaves it to run(). */
  ownHelp?: boolean;
  run(argv: string[]): Promise<number>;
}


type Options = NonNullable<ParseArgsConfig['options']>;

/** Parse flags; `--help`, `--json` and repeated `--set k=v` are always accepted. */
export function parseFlags<O extends Options>(argv: string[], options: O, allowPositionals = true) {
  try {
    return parseArgs({
      args: argv,
      options: {
        help: { type: 'boolean', short: 'h' },
        json: { type: 'boolean' },
        set: { type: 'string', multiple: true },
        ...options,
      },
      allowPositionals,
      strict: true,
    });
  } catch (e) {
    throw new UserError(flagError(e, Object.keys(options)), EXIT.USAGE);
  }
}

/** node:util's parser messages, said plainly: the unknown flag, the nearest known one, --help. */
export function flagError(e: unknown, known: readonly string[]): string {
  const err = e as { code?: string; message?: string };
  const msg = String(err.message ?? e);
  const flags = ['help', 'json', 'set', ...known];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const m = /Unknown option '(-{1,2}[^']+)'/.exec(msg);
    const flag = m ? m[1] : 'that option';
    const near = m ? closest(flag.replace(/^-+/, ''), flags) : null;
    return `unknown option ${flag}.${near ? ` Did you mean --${near}?` : ''} Run with --help for usage.`;
  }
  if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return `${msg.replace(/\.$/, '')}. Run with --help for usage.`;
  }
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const m = /Unexpected argument '([^']+)'/.exec(msg);
    return `unexpected argument ${m ? `"${m[1]}"` : ''}: this command takes no positional arguments. Run with --help for usage.`;
  }
  return `${msg.replace(/\.$/, '')}. Run with --help for usage.`;
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/**
 * The shape of a CLI command module and the helpers every command shares: flag parsing
 * with --help/--json/--set, user errors with meaningful exit codes, and JSON output.
 *
 * Exit codes: 0 ok · 1 the thing asked for failed or does not hold (e.g. gate fails,
 * unknown handle, daemon already running) · 2 usage or config error · 3 environment
 * problem (model missing, store unreadable, permission denied).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AppError } from '../shared/errors.js';

export const EXIT = { OK: 0, FAIL: 1, USAGE: 2, ENV: 3 } as const;

export interface Command {
  name: string;
  summary: string;
  /** Full --help text (usage line first). */
  help: string;
  /** Subcommand dispatchers (e.g. `eval`) print their subcommands' own --help: main leaves it to run(). */
  ownHelp?: boolean;
  run(argv: string[]): Promise<number>;
}

/** An error the user can act on: printed as `active-brain: <message>` without a stack. */
export class UserError extends AppError {
  constructor(message: string, exitCode: number = EXIT.FAIL) {
    super(message, exitCode);
    this.name = 'UserError';
  }
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
    throw new UserError(`${(e as Error).message}. Run with --help for usage.`, EXIT.USAGE);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

/** True when progress bars and colours may be drawn. */
export function isTty(): boolean {
  return Boolean(process.stderr.isTTY) && process.env.CI !== 'true';
}

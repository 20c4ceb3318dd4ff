/**
 * `active-brain eval <name> …`: dispatches to one evaluation module per subcommand
 * (cli/commands/eval/<name>-cmd.ts, each exporting `help` and `run(argv)`; the measurement code
 * they run lives in eval/), loaded lazily so one
 * evaluation never loads another's code. A module that is not in this build is reported
 * as not available (exit 3) instead of crashing the dispatcher.
 */
import { EXIT, UserError, type Command } from '../command.js';
import { isAppError } from '../../shared/errors.js';

export interface EvalModule {
  help: string;
  run(argv: string[]): Promise<number>;
}

interface Entry {
  summary: string;
  load: () => Promise<EvalModule>;
}

/** Evaluation modules are looked up by file name at run time (some land after this dispatcher). */
export function importEval(name: string): Promise<EvalModule> {
  return import(new URL(`./eval/${name}.js`, import.meta.url).href) as Promise<EvalModule>;
}

export const EVALS: Record<string, Entry> = {
  retrieval: { summary: 'LoCoMo: Recall@5/10, nDCG@10 per arm (--locomo FILE)', load: () => importEval('retrieval-cmd') },
  beir: { summary: 'BEIR-format corpus: nDCG@10, Recall@100 per arm (--corpus --queries --qrels)', load: () => importEval('beir-cmd') },
  drift: { summary: 'TIAGE topic shifts: drift trigger precision/recall/F1/Pk (--tiage FILE)', load: () => importEval('drift-cmd') },
  stall: { summary: 'OpenHands trajectories: stall trigger precision/recall/F1 (--openhands FILE)', load: () => importEval('stall-cmd') },
  pastfix: { summary: 'Past fix at the failure over transcripts in time order: recall, precision, offers per 100 steps', load: () => importEval('pastfix-cmd') },
  prompts: { summary: 'the prompt channel over transcripts in time order: offers per typed prompt; recall, precision against a judged gold (--gold)', load: () => importEval('prompts-cmd') },
  'locomo-replay': { summary: 'LoCoMo conversations replayed as live sessions: fire rate, gold share', load: () => importEval('locomo-replay-cmd') },
};

function usage(): string {
  const lines = ['usage: active-brain eval <name> [options]   (active-brain eval <name> --help for details)', '', 'Evaluations (figures on real data; --json for one JSON object):'];
  for (const [name, e] of Object.entries(EVALS)) lines.push(`  ${name.padEnd(14)} ${e.summary}`);
  return lines.join('\n');
}

async function load(name: string): Promise<EvalModule> {
  try {
    return await EVALS[name].load();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // Only the evaluation's own file missing means "not available"; a missing import inside it is a bug.
    const own = String((e as Error).message).includes(`/eval/${name}-cmd.js`);
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && own) {
      throw new UserError(`eval ${name} is not available in this build (its module is missing)`, EXIT.ENV);
    }
    throw e;
  }
}

export const command: Command = {
  name: 'eval',
  summary: 'retrieval / trigger evaluations on real data sets',
  help: usage(),
  ownHelp: true,
  async run(argv) {
    const [name, ...rest] = argv;
    if (!name || name === '--help' || name === '-h') {
      process.stdout.write(usage() + '\n');
      return name ? EXIT.OK : EXIT.USAGE;
    }
    if (!Object.hasOwn(EVALS, name)) {
      throw new UserError(`unknown evaluation "${name}": one of ${Object.keys(EVALS).join(', ')}`, EXIT.USAGE);
    }
    const mod = await load(name);
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(mod.help.trimEnd() + '\n');
      return EXIT.OK;
    }
    try {
      return await mod.run(rest);
    } catch (e) {
      // Store / model errors carry their own exit code and a message saying what to do.
      if (!(e instanceof UserError) && isAppError(e)) throw new UserError(e.message, e.exitCode);
      throw e;
    }
  },
};

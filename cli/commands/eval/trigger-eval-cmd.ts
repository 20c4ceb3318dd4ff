/**
 * The shell both trigger evals share (`eval drift --tiage FILE`, `eval stall --openhands
 * FILE`): flags, reading and parsing the dataset file with errors a person can act on, the
 * mode's thresholds, the embedder, a progress bar, and the JSON or text report on stdout.
 *
 *   argv ─▶ --<flag> FILE ─▶ parse ─▶ items ─▶ evaluate(items, embedder, mode, session) ─▶ report
 */
import { parseFlags, printJson, EXIT, UserError } from '../../command.js';
import { loadConfig } from '../../../config/load.js';
import type { Config, Mode } from '../../../config/schema.js';
import type { Embedder } from '../../../embed/types.js';
import { loadEmbedder } from '../../../eval/load-embedder.js';
import { createProgress } from '../../../eval/progress.js';
export { readDataset } from '../../../eval/dataset-file.js';

/** The mode whose thresholds an eval uses: the named one, else "default", else the first. */
export function pickMode(config: Config, name: string | undefined): { name: string; mode: Mode } {
  const names = Object.keys(config.modes);
  const chosen = name ?? (names.includes('default') ? 'default' : names[0]);
  if (!chosen || !config.modes[chosen]) throw new UserError(`no mode "${name}" in the config (modes: ${names.join(', ') || 'none'})`, EXIT.USAGE);
  return { name: chosen, mode: config.modes[chosen] };
}

export interface TriggerEvalSpec<T, R> {
  command: string;
  help: string;
  /** The dataset flag (`tiage`, `openhands`) and what its file holds, for the usage error. */
  flag: string;
  fileWhat: string;
  /** What the items are, plural (progress bar) and singular (empty-file error). */
  unit: string;
  unitOne: string;
  read: (path: string) => T[];
  evaluate: (items: readonly T[], embedder: Embedder, mode: Mode, session: Config['session'], onItem: (done: number) => void) => Promise<R>;
  json: (report: R, modeName: string, mode: Mode) => unknown;
  text: (report: R) => string;
}

export async function runTriggerEval<T, R>(argv: string[], spec: TriggerEvalSpec<T, R>): Promise<number> {
  const { values } = parseFlags(argv, { [spec.flag]: { type: 'string' }, model: { type: 'string' }, mode: { type: 'string' } }, false);
  if (values.help) {
    process.stdout.write(spec.help + '\n');
    return EXIT.OK;
  }
  const path = values[spec.flag] as string | undefined;
  if (!path) throw new UserError(`${spec.command} needs --${spec.flag} FILE (${spec.fileWhat}). Run with --help for usage.`, EXIT.USAGE);
  const items = spec.read(path);
  if (items.length === 0) throw new UserError(`${path} holds no ${spec.unitOne}`, EXIT.FAIL);
  const { config } = loadConfig({ flags: values.set });
  const { name, mode } = pickMode(config, values.mode);
  const embedder = await loadEmbedder(values.model, values.set);
  try {
    const progress = createProgress(spec.unit, items.length);
    const rep = await spec.evaluate(items, embedder, mode, config.session, (n) => progress.update(n));
    progress.done();
    if (values.json) printJson(spec.json(rep, name, mode));
    else process.stdout.write(spec.text(rep) + '\n');
    return EXIT.OK;
  } finally {
    await embedder.dispose();
  }
}

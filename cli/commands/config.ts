/**
 * `active-brain config`: the effective configuration and the source of every value
 * (default, config.json, env, flag). Reads config only; writes nothing.
 */
import { existsSync } from 'node:fs';
import { parseFlags, printJson, EXIT, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { homeDir } from '../../shared/paths.js';

function flatten(o: unknown, prefix: string, out: [string, unknown][]): [string, unknown][] {
  if (o && typeof o === 'object' && !Array.isArray(o)) {
    for (const [k, v] of Object.entries(o)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.push([prefix, o]);
  return out;
}

export const command: Command = {
  name: 'config',
  summary: 'effective config and where each value came from',
  help: `usage: active-brain config [--json] [--set key.path=value ...]

Prints every configuration value and its source. Precedence (lowest first):
  default < $ACTIVE_BRAIN_HOME/config.json < environment < --set flags
Environment: ACTIVE_BRAIN_TRANSCRIPTS (transcriptsRoot), ACTIVE_BRAIN_MODEL_PATH
(embedding.localModelPath), ACTIVE_BRAIN_MODEL (embedding.model), ACTIVE_BRAIN_EMBEDDING_URL
(embedding.url), ACTIVE_BRAIN_STORE (store.path).
Exit 2 when a value is invalid (the message names the key, the value and what is allowed).`,
  async run(argv) {
    const { values } = parseFlags(argv, {}, false);
    const { config, sources, file } = loadConfig({ flags: values.set });
    if (values.json) {
      printJson({ home: homeDir(), file, config, sources });
      return EXIT.OK;
    }
    const rows = flatten(config, '', []);
    const w = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(`# home: ${homeDir()}\n# file: ${file}${existsSync(file) ? "" : " (not present: defaults, env and --set only)"}\n`);
    for (const [k, v] of rows) process.stdout.write(`${k.padEnd(w)}  ${JSON.stringify(v)}  (${sources[k] ?? 'default'})\n`);
    return EXIT.OK;
  },
};

/**
 * `active-brain config`: the effective configuration and the source of every value
 * (default, config.json, env, flag), headed by each mode's rollout state per channel
 * (ops/channel-state.ts). Reads config only; writes nothing.
 */
import { existsSync } from 'node:fs';
import { parseFlags, printJson, EXIT, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { defaultStorePath, defaultTranscriptsRoot, homeDir } from '../../shared/paths.js';
import { formatStates, rolloutStates } from '../../ops/channel-state.js';

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
Environment: ACTIVE_BRAIN_TRANSCRIPTS (transcriptsRoot), ACTIVE_BRAIN_CODEX_SESSIONS
(codexSessionsRoot), ACTIVE_BRAIN_MODEL_PATH
(embedding.localModelPath), ACTIVE_BRAIN_MODEL (embedding.model), ACTIVE_BRAIN_EMBEDDING_URL
(embedding.url), ACTIVE_BRAIN_STORE (store.path).
Rollout states per channel: modes.<m>.state (prompt) and modes.<m>.tool.state (tool); they
go live only through \`active-brain enable <mode> --channel …\` (a --set to live is refused).
--json: {"home","file","rollout":{"<mode>":{"prompt","tool"}},"config","effective":{"transcriptsRoot",
"store.path"},"sources"} (effective: the keys whose default is computed, as used).
Exit 2 when a value is invalid (the message names the key, the value and what is allowed).`,
  async run(argv) {
    const { values } = parseFlags(argv, {}, false);
    const { config, sources, file } = loadConfig({ flags: values.set });
    if (values.json) {
      printJson({ home: homeDir(), file, rollout: rolloutStates(config), config, effective: { transcriptsRoot: config.transcriptsRoot ?? defaultTranscriptsRoot(), 'store.path': config.store.path ?? defaultStorePath() }, sources });
      return EXIT.OK;
    }
    // Keys whose default is computed (not a constant in the schema): shown with that value.
    const derived: Array<[string, unknown, string]> = [
      ['transcriptsRoot', config.transcriptsRoot ?? defaultTranscriptsRoot(), 'default: $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects'],
      ['store.path', config.store.path ?? defaultStorePath(), 'default: $ACTIVE_BRAIN_HOME/store.sqlite'],
    ];
    const rows = flatten(config, '', []);
    for (const [k, v] of derived) if (!rows.some(([key]) => key === k)) rows.push([k, v]);
    rows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const derivedSource = new Map(derived.map(([k, , src]) => [k, src]));
    const w = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(`# home: ${homeDir()}\n# file: ${file}${existsSync(file) ? "" : " (not present: defaults, env and --set only)"}\n`);
    for (const [m, st] of Object.entries(rolloutStates(config))) process.stdout.write(`# rollout: ${m}: ${formatStates(st)}\n`);
    for (const [k, v] of rows) process.stdout.write(`${k.padEnd(w)}  ${JSON.stringify(v)}  (${sources[k] ?? derivedSource.get(k) ?? 'default'})\n`);
    return EXIT.OK;
  },
};

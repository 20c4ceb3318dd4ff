/**
 * `active-brain config`: the effective configuration and the source of every value
 * (default, config.json, env, flag), headed by each mode's rollout state per channel
 * (ops/channel-state.ts). Reads config only; writes nothing.
 */
import { existsSync } from 'node:fs';
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { ENV_KEYS, loadConfig, schemaLeafKeys } from '../../config/load.js';
import { configPath, defaultStorePath, defaultTranscriptsRoot, homeDir } from '../../shared/paths.js';
import { formatStates, rolloutStates } from '../../ops/channel-state.js';

function flatten(o: unknown, prefix: string, out: [string, unknown][]): [string, unknown][] {
  if (o && typeof o === 'object' && !Array.isArray(o)) {
    for (const [k, v] of Object.entries(o)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.push([prefix, o]);
  return out;
}

/** Marks a row for a key that has no value (an optional key nobody set). */
const UNSET = Symbol('unset');
/** The environment variable that sets each key (config/load.ts ENV_KEYS), by key. */
const ENV_FOR: Record<string, string> = Object.fromEntries(Object.entries(ENV_KEYS).map(([name, key]) => [key, name]));

/** The schema's keys that have no value in the effective config (optional, unset). */
function unsetKeys(present: string[]): string[] {
  return schemaLeafKeys().filter((k) => !present.some((p) => p === k || p.startsWith(`${k}.`)));
}

export const command: Command = {
  name: 'config',
  summary: 'effective config and where each value came from',
  help: `usage: active-brain config [--json] [--set key.path=value ...]

Prints every configuration key, its value and its source — an optional key nobody set
(embedding.model, embedding.localModelPath, embedding.url, store.url, …) as "unset", with
the variable that sets it. Precedence (lowest first):
  default < $ACTIVE_BRAIN_HOME/config.json < environment < --set flags
Environment: ACTIVE_BRAIN_TRANSCRIPTS (transcriptsRoot), ACTIVE_BRAIN_CODEX_SESSIONS
(codexSessionsRoot), ACTIVE_BRAIN_MODEL_PATH
(embedding.localModelPath), ACTIVE_BRAIN_MODEL (embedding.model), ACTIVE_BRAIN_EMBEDDING_URL
(embedding.url), ACTIVE_BRAIN_STORE (store.path), ACTIVE_BRAIN_STORE_URL (store.url).
Rollout states per channel: modes.<m>.state (prompt) and modes.<m>.tool.state (tool); they
go live only through \`active-brain enable <mode> --channel …\` (a --set to live is refused).
--json: {"home","file","rollout":{"<mode>":{"prompt","tool"}},"config","effective":{"transcriptsRoot",
"store.path"},"sources","unset":[keys]} (effective: the keys whose default is computed, as
used; unset: the optional keys nobody set).
Exit 2 when a value is invalid (the message names the key, the value and what is allowed).`,
  async run(argv) {
    // `config set k v` / `config get k`: say how values are set here, not "unexpected argument".
    if (argv[0] === 'set' || argv[0] === 'get' || argv[0] === 'unset') {
      const file = configPath();
      const key = argv[1] && !argv[1].startsWith('-') ? argv[1] : 'key.path';
      throw new UserError(
        argv[0] === 'get'
          ? `config has no "get": \`active-brain config\` prints every key with its value and source (\`--json\` for scripts)`
          : `config does not ${argv[0]} values: edit "${key}" in ${file} (every later command and the daemon read it), or give \`--set ${key}=${argv[2] ?? 'value'}\` to one command for that run; rollout states change only through \`active-brain enable\` / \`disable\``,
        EXIT.USAGE,
      );
    }
    const { values } = parseFlags(argv, {}, false);
    const { config, sources, file } = loadConfig({ flags: values.set });
    if (values.json) {
      const unset = unsetKeys(flatten(config, '', []).map(([k]) => k));
      printJson({ home: homeDir(), file, rollout: rolloutStates(config), config, effective: { transcriptsRoot: config.transcriptsRoot ?? defaultTranscriptsRoot(), 'store.path': config.store.path ?? defaultStorePath() }, sources, unset });
      return EXIT.OK;
    }
    // Keys whose default is computed (not a constant in the schema): shown with that value.
    const derived: Array<[string, unknown, string]> = [
      ['transcriptsRoot', config.transcriptsRoot ?? defaultTranscriptsRoot(), 'default: $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects'],
      ['store.path', config.store.path ?? defaultStorePath(), 'default: $ACTIVE_BRAIN_HOME/store.sqlite'],
    ];
    const rows = flatten(config, '', []);
    for (const [k, v] of derived) if (!rows.some(([key]) => key === k)) rows.push([k, v]);
    // Optional keys with no default (embedding.model, embedding.localModelPath, embedding.url,
    // store.url, …): unset, and shown as such — they are the ones an offline user sets.
    const unset = unsetKeys(rows.map(([k]) => k));
    for (const k of unset) rows.push([k, UNSET]);
    rows.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const derivedSource = new Map(derived.map(([k, , src]) => [k, src]));
    const w = Math.max(...rows.map(([k]) => k.length));
    process.stdout.write(`# home: ${homeDir()}\n# file: ${file}${existsSync(file) ? "" : " (not present: defaults, env and --set only)"}\n`);
    for (const [m, st] of Object.entries(rolloutStates(config))) process.stdout.write(`# rollout: ${m}: ${formatStates(st)}\n`);
    for (const [k, v] of rows) {
      const shown = v === UNSET ? 'unset' : JSON.stringify(v);
      const src = v === UNSET ? `set it with ${ENV_FOR[k] ? `${ENV_FOR[k]} or ` : ''}config.json` : sources[k] ?? derivedSource.get(k) ?? 'default';
      process.stdout.write(`${k.padEnd(w)}  ${shown}  (${src})\n`);
    }
    return EXIT.OK;
  },
};

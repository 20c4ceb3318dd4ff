/**
 * Effective configuration and where each value came from.
 *
 *   defaults (config/schema.ts) < <home>/config.json < environment < flags (--set a.b=v)
 *
 * Invalid values raise ConfigError naming the key, the value and what is allowed; the CLI
 * turns that into exit code 2. `active-brain config` prints the result with sources.
 */
import { readFileSync, existsSync } from 'node:fs';
import { z } from 'zod';
import { ConfigSchema, type Config } from './schema.js';
import { configPath } from '../shared/paths.js';
import { AppError } from '../shared/errors.js';
import { closest } from '../shared/suggest.js';

/** The keys the schema allows under `path` (an object section, or a mode), for error messages. */
export function knownKeysAt(path: readonly string[]): string[] {
  // Peel zod wrappers (default, optional, effects) and follow object shapes / records.
  const unwrap = (t: z.ZodTypeAny): z.ZodTypeAny => {
    for (;;) {
      if (t instanceof z.ZodDefault || t instanceof z.ZodOptional || t instanceof z.ZodNullable) t = t._def.innerType;
      else if (t instanceof z.ZodEffects) t = t._def.schema;
      else return t;
    }
  };
  let t: z.ZodTypeAny = unwrap(ConfigSchema);
  for (const p of path) {
    if (t instanceof z.ZodObject) t = unwrap((t.shape as Record<string, z.ZodTypeAny>)[p] ?? z.never());
    else if (t instanceof z.ZodRecord) t = unwrap(t._def.valueType);
    else return [];
  }
  return t instanceof z.ZodObject ? Object.keys(t.shape as object) : [];
}

/** Every leaf key the schema knows (`embedding.url`, `indexer.intervalMinutes`, …), optional
 *  ones included; a record (modes) is one leaf. For `config`, which prints every key. */
export function schemaLeafKeys(path: readonly string[] = []): string[] {
  const out: string[] = [];
  for (const k of knownKeysAt(path)) {
    const sub = [...path, k];
    if (knownKeysAt(sub).length > 0) out.push(...schemaLeafKeys(sub));
    else out.push(sub.join('.'));
  }
  return out;
}

export type Source = 'default' | 'config.json' | 'env' | 'flag';

export class ConfigError extends AppError {
  constructor(message: string) {
    super(message, 2);
    this.name = 'ConfigError';
  }
}

/** Environment variables that set config keys (besides ACTIVE_BRAIN_HOME, read in shared/paths). */
export const ENV_KEYS: Record<string, string> = {
  ACTIVE_BRAIN_TRANSCRIPTS: 'transcriptsRoot',
  ACTIVE_BRAIN_CODEX_SESSIONS: 'codexSessionsRoot',
  ACTIVE_BRAIN_MODEL_PATH: 'embedding.localModelPath',
  ACTIVE_BRAIN_MODEL: 'embedding.model',
  ACTIVE_BRAIN_EMBEDDING_URL: 'embedding.url',
  ACTIVE_BRAIN_STORE: 'store.path',
  ACTIVE_BRAIN_STORE_URL: 'store.url',
};

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

function setPath(target: Obj, path: string, value: Json): void {
  const parts = path.split('.');
  let o: Obj = target;
  for (const p of parts.slice(0, -1)) {
    if (typeof o[p] !== 'object' || o[p] === null || Array.isArray(o[p])) o[p] = {};
    o = o[p] as Obj;
  }
  o[parts[parts.length - 1]] = value;
}

function deepMerge(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    if (v && typeof v === 'object' && !Array.isArray(v) && b && typeof b === 'object' && !Array.isArray(b)) {
      out[k] = deepMerge(b as Obj, v as Obj);
    } else out[k] = v;
  }
  return out;
}

function leaves(o: Json, prefix: string, out: string[]): string[] {
  if (o && typeof o === 'object' && !Array.isArray(o)) {
    for (const [k, v] of Object.entries(o)) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.push(prefix);
  return out;
}

/** Parse a flag/env string: JSON when it parses (numbers, booleans, arrays), else the raw string. */
export function parseScalar(raw: string): Json {
  try {
    return JSON.parse(raw) as Json;
  } catch {
    return raw;
  }
}

export interface LoadOptions {
  env?: NodeJS.ProcessEnv;
  /** `key.path=value` overrides from --set flags. */
  flags?: string[];
  /** Read this file instead of <home>/config.json. */
  file?: string;
  /** Leave config.json out (the defaults, the environment and the flags only). */
  skipFile?: boolean;
}

export interface Loaded {
  config: Config;
  sources: Record<string, Source>;
  file: string;
}

export function readConfigFile(file: string): Obj {
  if (!existsSync(file)) return {};
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read ${file}: ${(e as Error).message}. Fix its permissions or remove it.`);
  }
  try {
    const v = JSON.parse(raw) as Json;
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('top level must be an object');
    return v as Obj;
  } catch (e) {
    throw new ConfigError(`${file} is not valid JSON (${(e as Error).message}). Fix it or move it away; defaults apply without it.`);
  }
}

/**
 * `--set modes.<name>.…` may only change a mode that exists (in config.json, or the built-in
 * `default` when config.json names none): a typo such as `modes.defualt.state=live` would
 * otherwise create a second mode — live, matching every cwd — past the `enable` gates.
 */
function checkModeNames(fileLayer: Obj, flagLayer: Obj): void {
  const fileModes = fileLayer.modes && typeof fileLayer.modes === 'object' ? Object.keys(fileLayer.modes as Obj) : [];
  const known = fileModes.length > 0 ? fileModes : ['default'];
  const asked = flagLayer.modes && typeof flagLayer.modes === 'object' ? Object.keys(flagLayer.modes as Obj) : [];
  const unknown = asked.filter((m) => !known.includes(m));
  if (unknown.length) {
    throw new ConfigError(
      `--set names mode "${unknown[0]}", which does not exist (modes: ${known.join(', ')}). ` +
        'Fix the name, or add the mode to config.json first (a new mode starts in soak and goes live through `active-brain enable`).',
    );
  }
}

/**
 * `--set` may not put a channel live: `modes.<m>.state=live` (prompt) or
 * `modes.<m>.tool.state=live` (tool), however spelled (`modes.<m>={"state":"live"}` too),
 * would bypass `enable` and its gates — for the daemon it writes the hook's settings from
 * its config. Soak and off are allowed: they only silence.
 */
function checkNoLiveFlags(flagLayer: Obj): void {
  const modes = flagLayer.modes;
  if (!modes || typeof modes !== 'object' || Array.isArray(modes)) return;
  for (const [name, m] of Object.entries(modes)) {
    if (!m || typeof m !== 'object' || Array.isArray(m)) continue;
    const tool = (m as Obj).tool;
    const live: string[] = [];
    if ((m as Obj).state === 'live') live.push('prompt');
    if (tool && typeof tool === 'object' && !Array.isArray(tool) && (tool as Obj).state === 'live') live.push('tool');
    if (live.length) {
      const key = live[0] === 'prompt' ? `modes.${name}.state` : `modes.${name}.tool.state`;
      throw new ConfigError(
        `--set ${key}=live is refused: a channel goes live only after its soak gates pass. ` +
          `Run \`active-brain enable ${name} --channel ${live[0]}\` (it names any failing gate; --force is logged).`,
      );
    }
  }
}

export function loadConfig(opts: LoadOptions = {}): Loaded {
  const env = opts.env ?? process.env;
  const file = opts.file ?? configPath(env);
  const layers: [Source, Obj][] = [];
  layers.push(['config.json', opts.skipFile ? {} : readConfigFile(file)]);
  const envLayer: Obj = {};
  for (const [name, key] of Object.entries(ENV_KEYS)) {
    const v = env[name];
    if (v !== undefined && v !== '') setPath(envLayer, key, v);
  }
  layers.push(['env', envLayer]);
  const flagLayer: Obj = {};
  for (const f of opts.flags ?? []) {
    const eq = f.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--set expects key.path=value, got "${f}"`);
    setPath(flagLayer, f.slice(0, eq), parseScalar(f.slice(eq + 1)));
  }
  layers.push(['flag', flagLayer]);
  checkModeNames(layers[0][1], flagLayer);
  checkNoLiveFlags(flagLayer);

  let merged: Obj = {};
  const sources: Record<string, Source> = {};
  for (const [src, layer] of layers) {
    merged = deepMerge(merged, layer);
    for (const leaf of leaves(layer, '', [])) if (leaf) sources[leaf] = src;
  }
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys') {
      // Name the unknown key itself (not its parent object) and where it came from.
      const keys = issue.keys.map((k) => [...issue.path, k].join('.'));
      const srcOf = (k: string) => sources[k] ?? Object.entries(sources).find(([leaf]) => leaf.startsWith(`${k}.`))?.[1];
      const src = keys.map(srcOf).find(Boolean) ?? 'config.json';
      // Say what to edit — never "run active-brain config": with a bad config it fails the same way.
      const known = knownKeysAt(issue.path.map(String));
      const near = closest(issue.keys[0], known);
      const where = src === 'config.json' ? `remove or rename it in ${file}` : src === 'flag' ? 'fix the --set flag' : 'fix the environment variable';
      throw new ConfigError(
        `unknown config key ${keys.map((k) => `"${k}"`).join(', ')} (from ${src}): ${where}.` +
          `${near ? ` Did you mean "${[...issue.path, near].join('.')}"?` : ''}` +
          ` Keys here: ${known.join(', ') || '(none)'}; every key, its default and meaning: config/schema.ts and README "Configuration".`,
      );
    }
    const key = issue.path.join('.');
    let value: unknown = merged;
    for (const p of issue.path) value = (value as Record<string | number, unknown> | undefined)?.[p];
    // A check across keys can point at a key nobody set: say so instead of "undefined".
    const shown = value === undefined ? '(its default)' : JSON.stringify(value);
    const src = value === undefined ? 'default' : (sources[key] ?? 'config.json');
    throw new ConfigError(`invalid config value for "${key || '(top level)'}" = ${shown} (from ${src}): ${issue.message}`);
  }
  const config = parsed.data;
  for (const leaf of leaves(config as unknown as Json, '', [])) if (!(leaf in sources)) sources[leaf] = 'default';
  return { config, sources, file };
}

/**
 * The config for the commands that report on the set-up (status, doctor): a config.json that
 * does not read, parse or check is reported (`problem`), not fatal — they run on the defaults
 * plus the environment and flags, so a person still sees that the daemon is up and the hook
 * works. A bad flag or environment variable still throws (the person can fix it right there).
 */
export function loadConfigOrDefaults(opts: LoadOptions = {}): Loaded & { problem: string | null } {
  try {
    return { ...loadConfig(opts), problem: null };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    let loaded: Loaded;
    try {
      loaded = loadConfig({ ...opts, skipFile: true });
    } catch {
      throw e;
    }
    return { ...loaded, problem: e.message };
  }
}

/**
 * What `setup` (and `service install`) chose, written into <home>/config.json so that every
 * later process agrees with it without the shell that ran setup: a new shell's `start`,
 * `doctor` and `status`, the service units, the daemon and the hook. The choices are the
 * values that came from the environment or a --set flag for the keys a set-up depends on
 * (the model folder, the transcript roots, the store), plus the transcripts root always (its
 * default depends on CLAUDE_CONFIG_DIR, which a later shell may not have), and who runs the
 * scheduled index (indexer.schedule). Pure planning (choicesFrom, withChoices); the write is
 * one atomic rewrite of config.json that keeps every other key as the user wrote it.
 */
import { resolve } from 'node:path';
import { ConfigSchema, type Config } from './schema.js';
import { ConfigError, readConfigFile, type Source } from './load.js';
import { configPath, defaultTranscriptsRoot, homeDir } from '../shared/paths.js';
import { ensureDir, writeFileAtomic } from '../shared/atomic.js';
import { isObj, type Obj } from '../shared/json-object.js';

/** Keys persisted when they came from the environment or a flag; `path` ones are made absolute. */
export const PERSISTED_KEYS = [
  { key: 'transcriptsRoot', path: true },
  { key: 'codexSessionsRoot', path: true },
  { key: 'embedding.localModelPath', path: true },
  { key: 'embedding.model', path: false },
  { key: 'embedding.url', path: false },
  { key: 'store.path', path: true },
  { key: 'store.url', path: false },
] as const;

/** Sources whose values live only as long as the shell (or the command line) that set them. */
const TRANSIENT: readonly Source[] = ['env', 'flag'];

function getPath(o: Obj, key: string): unknown {
  let v: unknown = o;
  for (const p of key.split('.')) v = isObj(v) ? v[p] : undefined;
  return v;
}

function setPath(o: Obj, key: string, value: unknown): Obj {
  const [head, ...rest] = key.split('.');
  if (rest.length === 0) return { ...o, [head]: value };
  return { ...o, [head]: setPath(isObj(o[head]) ? (o[head] as Obj) : {}, rest.join('.'), value) };
}

/** The values to persist (pure): transient ones of PERSISTED_KEYS, and the transcripts root. */
export function choicesFrom(config: Config, sources: Record<string, Source>, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, path } of PERSISTED_KEYS) {
    const v = getPath(config as unknown as Obj, key);
    if (typeof v !== 'string' || !TRANSIENT.includes(sources[key])) continue;
    out[key] = path ? resolve(v) : v;
  }
  out.transcriptsRoot ??= resolve(config.transcriptsRoot ?? defaultTranscriptsRoot(env));
  return out;
}

/** config.json's object with the choices set (pure); `changed` names the keys that differ. */
export function withChoices(raw: Obj, choices: Record<string, unknown>): { raw: Obj; changed: string[] } {
  let next = raw;
  const changed: string[] = [];
  for (const [k, v] of Object.entries(choices)) {
    if (getPath(next, k) === v) continue;
    next = setPath(next, k, v);
    changed.push(k);
  }
  return { raw: next, changed };
}

export interface PersistResult {
  file: string;
  /** Keys whose value in config.json changed (dry run: would change). */
  changed: string[];
}

/** Write the choices into config.json (nothing when they are there already, or on a dry run). */
export function persistChoices(choices: Record<string, unknown>, opts: { dryRun: boolean }, env: NodeJS.ProcessEnv = process.env): PersistResult {
  const file = configPath(env);
  const { raw, changed } = withChoices(readConfigFile(file), choices);
  if (changed.length === 0 || opts.dryRun) return { file, changed };
  const check = ConfigSchema.safeParse(raw);
  if (!check.success) throw new ConfigError(`refusing to write ${file}: ${check.error.issues[0].path.join('.')}: ${check.error.issues[0].message}`);
  ensureDir(homeDir(env));
  writeConfigFile(file, raw);
  return { file, changed };
}

/** config.json as every writer writes it (setup, enable, disable): indented, a person's file. */
export function writeConfigFile(file: string, raw: Record<string, unknown>): void {
  writeFileAtomic(file, JSON.stringify(raw, null, 2) + '\n');
}

/** The config as it will load once the choices are in config.json (pure): the units, the
 *  health summary and a dry run compute with what every later process will see. */
export function applyChoices(config: Config, choices: Record<string, unknown>): Config {
  return withChoices(config as unknown as Obj, choices).raw as unknown as Config;
}

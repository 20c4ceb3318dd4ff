/**
 * When the soak began and what the knowledge store looked like then: <home>/soak.json.
 * Written once (by the daemon's first start or the first `soak report`), never overwritten,
 * so later reports compare against the same point.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { homeDir } from '../shared/paths.js';
import { ensureDir, writeJsonAtomic } from '../shared/atomic.js';
import { storeFingerprint, type StoreFingerprint } from './store-fingerprint.js';

export interface SoakBaseline {
  version: 1;
  startedAt: number;
  /** When `store` was fingerprinted (later than startedAt when the soak's start was taken
   *  from older logs). Absent in older files: then it is startedAt. */
  takenAt?: number;
  store: StoreFingerprint;
}

export const soakBaselinePath = (env: NodeJS.ProcessEnv = process.env) => join(homeDir(env), 'soak.json');

export function readSoakBaseline(env: NodeJS.ProcessEnv = process.env): SoakBaseline | null {
  try {
    const v = JSON.parse(readFileSync(soakBaselinePath(env), 'utf8')) as SoakBaseline;
    return v && v.version === 1 && typeof v.startedAt === 'number' ? v : null;
  } catch {
    return null;
  }
}

export function ensureSoakBaseline(storePath: string, env: NodeJS.ProcessEnv = process.env, now = Date.now()): SoakBaseline {
  const existing = readSoakBaseline(env);
  if (existing) return existing;
  const b: SoakBaseline = { version: 1, startedAt: now, takenAt: Date.now(), store: storeFingerprint(storePath) };
  ensureDir(homeDir(env));
  if (!existsSync(soakBaselinePath(env))) writeJsonAtomic(soakBaselinePath(env), b);
  return b;
}

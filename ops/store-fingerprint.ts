/**
 * Knowledge-store fingerprints, so `soak report` can prove the daemon never wrote the store:
 * a SHA-256 over the database file and its WAL. The indexer (the only writer) records the
 * fingerprint it left behind in logs/index.jsonl; any other change is an unexplained write.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { appendFileSync } from 'node:fs';
import { ensureDir } from '../shared/atomic.js';
import { logsDir } from '../shared/paths.js';

/** Read buffer for hashing (bytes). */
const HASH_CHUNK = 1 << 20;

export interface StoreFingerprint {
  path: string;
  exists: boolean;
  bytes: number;
  sha256: string | null;
}

function hashInto(h: ReturnType<typeof createHash>, path: string): number {
  if (!existsSync(path)) return 0;
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(HASH_CHUNK);
  let total = 0;
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, HASH_CHUNK, null);
      if (n <= 0) break;
      h.update(buf.subarray(0, n));
      total += n;
    }
  } finally {
    closeSync(fd);
  }
  return total;
}

export function storeFingerprint(path: string): StoreFingerprint {
  if (!existsSync(path)) return { path, exists: false, bytes: 0, sha256: null };
  const h = createHash('sha256');
  let bytes = hashInto(h, path);
  // A WAL that holds frames is part of the store's content until checkpointed.
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) bytes += hashInto(h.update('\0wal\0'), wal);
  return { path, exists: true, bytes, sha256: h.digest('hex') };
}

export const INDEX_LOG = 'index.jsonl';

export interface IndexRunRecord {
  ts: number;
  event: 'index-run';
  pid: number;
  store: string;
  sha256: string | null;
  bytes: number;
  indexed: number;
  removed: number;
}

/** Called by the indexer after every run that may have written the store. */
export function recordIndexRun(storePath: string, counts: { indexed: number; removed: number }, env: NodeJS.ProcessEnv = process.env): void {
  const fp = storeFingerprint(storePath);
  const rec: IndexRunRecord = { ts: Date.now(), event: 'index-run', pid: process.pid, store: storePath, sha256: fp.sha256, bytes: fp.bytes, ...counts };
  const dir = logsDir(env);
  ensureDir(dir);
  appendFileSync(join(dir, INDEX_LOG), JSON.stringify(rec) + '\n', { mode: 0o600 });
}

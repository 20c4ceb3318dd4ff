/**
 * Knowledge-store fingerprints, so `soak report` can prove the daemon never wrote the store:
 * a SHA-256 over the database file and its WAL. Every index run (the only writer) records the
 * fingerprint before and after it in logs/index.jsonl (daemon/index-runs.ts); ops/store-writes.ts
 * decides which changes those runs explain.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';

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

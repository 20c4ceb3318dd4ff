/**
 * Test harness for daemon/tailer.ts: a real Tailer over a temp transcript root, a consumer
 * that records what it gets and commits like the daemon does, and a polling waitFor.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Tailer, type TailerDaemonConfig } from '../../daemon/tailer.js';
import type { WarningDetail } from '../../daemon/tail-events.js';

export interface Got {
  path: string;
  sessionId: string;
  line: string;
  startOffset: number;
  endOffset: number;
  seed: boolean;
  subagent: boolean;
  first: boolean;
  state: unknown;
}

export const SMALL: TailerDaemonConfig = {
  usePolling: false,
  seedHistoryBytes: 2 * 1024 * 1024,
  maxLineBytes: 64 * 1024,
  watchSubagents: false,
  rootPollMs: 100,
  readChunkBytes: 4096,
  maxBatchBytes: 64 * 1024,
  seedMaxAgeMinutes: 240,
};

const made: string[] = [];

/** Remove every temp dir made by tempDirs() (call from afterAll). */
export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function tempDirs(): { base: string; root: string; offsets: string } {
  const base = mkdtempSync(join(tmpdir(), 'ab-tail-'));
  made.push(base);
  return { base, root: join(base, 'projects'), offsets: join(base, 'home', 'offsets.json') };
}

export interface Harness {
  tailer: Tailer;
  got: Got[];
  skipped: Array<{ path: string; reason: string; detail: unknown }>;
  resets: Array<{ path: string; reason: string }>;
  removed: string[];
  warnings: string[];
  /** Each warning with its detail, in order. */
  warningDetails: Array<{ reason: string; detail: WarningDetail }>;
  /** Called after each delivered batch is recorded (a test's own consumer step). */
  afterLines: (() => void) | null;
  /** Lines of one path, in delivery order. */
  linesOf(path: string): string[];
}

/** A tailer whose consumer commits each batch after "processing" it (unless autoCommit is false). */
export function harness(root: string, offsets: string, daemon: Partial<TailerDaemonConfig> = {}, autoCommit = true): Harness {
  const tailer: Tailer = new Tailer(
    { root, offsetsPath: offsets, daemon: { ...SMALL, ...daemon } },
    {
      lines(path, sessionId, lines, info) {
        for (const l of lines) h.got.push({ path, sessionId, ...l, seed: info.seed, subagent: info.subagent, first: info.first, state: info.state });
        if (autoCommit) tailer.commit(path, info.endOffset, { count: h.got.filter((g) => g.path === path).length });
        h.afterLines?.();
      },
      skipped: (path, reason, detail) => h.skipped.push({ path, reason, detail }),
      reset: (path, reason) => h.resets.push({ path, reason }),
      removed: (path) => h.removed.push(path),
      warning: (reason, detail) => {
        h.warnings.push(reason);
        h.warningDetails.push({ reason, detail });
      },
    },
  );
  const h: Harness = {
    tailer,
    got: [],
    skipped: [],
    resets: [],
    removed: [],
    warnings: [],
    warningDetails: [],
    afterLines: null,
    linesOf: (p) => h.got.filter((g) => g.path === p).map((g) => g.line),
  };
  return h;
}

export async function waitFor(cond: () => boolean, timeoutMs = 8000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A small transcript-like line (the tailer does not parse; content only needs to be unique). */
export const rec = (i: number, pad = 0) => JSON.stringify({ type: 'user', uuid: `u${i}`, message: { role: 'user', content: `prompt ${i}${'.'.repeat(pad)}` } });

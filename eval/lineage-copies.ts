/**
 * Copies, one rule for `replay`, `backtest` and `eval pastfix`: a resumed or forked transcript
 * repeats its parent's records; Claude Code ran no hook for them in the new session, and the
 * daemon reads them as history. Which records are copies comes from eval/offer-audit.ts
 * readFileLineage, read over the replayed files and the other sessions of their folders (a
 * user's project folder holds the parent even when one file is replayed alone). Marking sets a
 * copied exchange to seed (no hook at its prompt) and a copied tool step to `copy` (no hook at
 * its result; the pipeline reads it as seed). Reads the transcripts; writes nothing.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isCopiedStep, readFileLineage, sessionOfPath, type FileLineage } from './offer-audit.js';
import type { FileExchanges } from './replay-read.js';

/** The files and every other `*.jsonl` session beside each of them (their folders' sessions):
 *  where a resumed file's parent lives. Files under `subagents/` are left out. */
export function lineagePaths(paths: readonly string[]): string[] {
  const out = new Set<string>();
  const folders = new Set<string>();
  for (const p of paths) {
    if (basename(dirname(p)) === 'subagents') continue;
    out.add(p);
    folders.add(dirname(p));
  }
  for (const d of folders) {
    let names: string[];
    try {
      names = readdirSync(d, { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.jsonl')).map((e) => e.name);
    } catch {
      continue; // an unreadable folder adds no siblings
    }
    for (const n of names.sort()) out.add(join(d, n));
  }
  return [...out];
}

/** The lineage of these transcript files, read with their folders' other sessions. */
export async function lineageOfFiles(paths: readonly string[]): Promise<FileLineage> {
  return readFileLineage(lineagePaths(paths));
}

/** A file's reading with its copies marked (a new object; the reading is not changed), and
 *  how many exchanges (final ones) and tool steps were copies. */
export function markCopies(read: FileExchanges, lineage: FileLineage, path: string): { read: FileExchanges; exchanges: number; steps: number } {
  const copies = lineage.copies.get(sessionOfPath(path));
  if (!copies) return { read, exchanges: 0, steps: 0 };
  let exchanges = 0;
  let steps = 0;
  const marked: FileExchanges = {
    ...read,
    exchanges: read.exchanges.map((t) => (copies.has(t.exchange.uuid) ? ((exchanges += t.provisional ? 0 : 1), { ...t, seed: true, hookFires: false }) : t)),
    steps: read.steps.map((t) => (isCopiedStep(copies, t.step.uuid, t.step.toolUseId) ? (steps++, { ...t, copy: true }) : t)),
  };
  return { read: marked, exchanges, steps };
}

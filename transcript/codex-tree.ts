/**
 * The rollout files of a Codex CLI sessions tree (`<sessions>/YYYY/MM/DD/rollout-*.jsonl`),
 * and the cwd a rollout names (session_meta, else its first turn_context). Synchronous reads of folders and
 * of one first line: used by the indexer's source listing (indexer/files.ts) and by
 * `eval pastfix` (one project per cwd). Unreadable folders and files are skipped.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FIRST_LINE_BYTES, headTextSync } from './host.js';

const YEAR_RE = /^\d{4}$/;
const TWO_DIGITS_RE = /^\d{2}$/;

function dirs(dir: string, re: RegExp): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && re.test(d.name))
      .map((d) => join(dir, d.name));
  } catch {
    return [];
  }
}

/** True when `dir` looks like a Codex sessions root (it holds YYYY folders). */
export function isCodexSessionsTree(dir: string): boolean {
  return dirs(dir, YEAR_RE).some((y) => dirs(y, TWO_DIGITS_RE).length > 0);
}

/** Every `rollout-*.jsonl` under `dir`'s YYYY/MM/DD folders, sorted (= time order). */
export function codexRolloutFiles(dir: string): string[] {
  const out: string[] = [];
  for (const y of dirs(dir, YEAR_RE)) {
    for (const m of dirs(y, TWO_DIGITS_RE)) {
      for (const d of dirs(m, TWO_DIGITS_RE)) {
        try {
          for (const e of readdirSync(d, { withFileTypes: true })) {
            if (e.isFile() && e.name.startsWith('rollout-') && e.name.endsWith('.jsonl')) out.push(join(d, e.name));
          }
        } catch {
          /* unreadable day folder: skipped */
        }
      }
    }
  }
  return out.sort();
}

/** Lines looked at for a cwd (session_meta is the first; turn_context follows within a few). */
const CWD_LINES = 16;

/** The cwd a rollout names: its session_meta's, else the first turn_context's (a rollout
 *  without session_meta), else null. Reads at most FIRST_LINE_BYTES. */
export function rolloutCwd(path: string): string | null {
  const text = headTextSync(path, FIRST_LINE_BYTES);
  if (text === null) return null;
  for (const l of text.split('\n', CWD_LINES)) {
    let v: { type?: unknown; payload?: { cwd?: unknown; meta?: { cwd?: unknown } } };
    try {
      v = JSON.parse(l) as typeof v;
    } catch {
      continue;
    }
    if (v?.type !== 'session_meta' && v?.type !== 'turn_context') continue;
    const cwd = v.payload?.meta?.cwd ?? v.payload?.cwd;
    if (typeof cwd === 'string' && cwd) return cwd;
  }
  return null;
}

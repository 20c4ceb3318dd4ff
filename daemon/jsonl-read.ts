/**
 * Reads JSONL logs for reports: every file in order, one parsed object per good line,
 * bad lines counted (a torn last line after a crash is normal) and never fatal.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { daemonLogFiles, DAEMON_LOG_FILE } from './logs.js';

export interface JsonlRead<T> {
  records: T[];
  badLines: number;
  files: string[];
}

export function readJsonlFiles<T extends { ts?: number }>(files: string[], sinceMs = 0): JsonlRead<T> {
  const records: T[] = [];
  let badLines = 0;
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const v = JSON.parse(line) as T;
        if (!v || typeof v !== 'object') { badLines++; continue; }
        if (typeof v.ts === 'number' && v.ts < sinceMs) continue;
        records.push(v);
      } catch {
        badLines++;
      }
    }
  }
  return { records, badLines, files };
}

function names(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Daemon log files, oldest first. */
export function daemonLogs(dir: string): string[] {
  return daemonLogFiles(dir, names(dir), DAEMON_LOG_FILE);
}

/** Hook log files (hook.jsonl.<epoch-ms> rotated, then the live file), oldest first. */
export function hookLogs(dir: string): string[] {
  const all = names(dir);
  const rotated = all
    .filter((n) => /^hook\.jsonl\.\d+$/.test(n))
    .sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop()))
    .map((n) => join(dir, n));
  return all.includes('hook.jsonl') ? [...rotated, join(dir, 'hook.jsonl')] : rotated;
}

/** Any single JSONL file (labels, recalls, index runs). */
export function oneLog(path: string): string[] {
  return existsSync(path) ? [path] : [];
}

/**
 * The hook's own log: one JSON line per run in <home>/logs/hook.jsonl (schema:
 * logs-schema/hook-record.schema.json). Ids, reason codes, scores and latency only — never
 * prompt text, never error text (a tool event logs its error's signature). Appended with O_APPEND
 * (whole lines, one write; O_NOFOLLOW, only in the user's own logs folder: hook/trust.ts); when the file passes
 * ROTATE_BYTES it is renamed to hook.jsonl.<epoch-ms> and the oldest rotated files beyond
 * KEEP_ROTATED are removed. Failures to log are swallowed: logging never breaks the prompt.
 */
import { openSync, writeSync, closeSync, fstatSync, renameSync, readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir } from '../shared/atomic.js';
import { homeDir, logsDir } from '../shared/paths.js';
import { dirTrust, SAFE_APPEND_FLAGS } from './trust.js';
import type { Channel, ModeState, OfferType } from '../shared/types.js';
import type { HookEvent } from '../shared/vocabulary.js';
import type { Outcome, Reason } from './gates.js';

export const HOOK_LOG_NAME = 'hook.jsonl';
/** Rotate the hook log past this size. */
export const ROTATE_BYTES = 10 * 1024 * 1024;
/** Rotated hook logs kept. */
export const KEEP_ROTATED = 10;

export interface HookRecord {
  /** Epoch ms when the run ended. */
  ts: number;
  session: string | null;
  outcome: Outcome;
  reason: Reason;
  /** The hook's own time (from its module start to the log write), ms. */
  latency_ms: number;
  /** Node start-up before the hook's code ran, ms (wall time ≈ boot_ms + latency_ms). */
  boot_ms: number;
  mode: string | null;
  /** The rollout state of the channel that decided. */
  mode_state: ModeState | null;
  /** null until the payload named an event the hook answers. */
  channel: Channel | null;
  event: HookEvent | null;
  turn?: number;
  /** Tool channel: the hook's own count of this session's tool events. */
  step?: number;
  /** Tool channel: the error's signature (14 hex digits) and the tool call's id. */
  sig?: string;
  tool_use_id?: string;
  /** Tool channel: where the offer came from. */
  source?: 'fixes' | 'tool-cache';
  offer_id?: string;
  handle?: string;
  type?: OfferType;
  confidence?: number;
  /** Bytes of the printed (or would-be printed) line. */
  bytes?: number;
  exit: 0;
}

export function hookLogPath(env: NodeJS.ProcessEnv): string {
  return join(logsDir(env), HOOK_LOG_NAME);
}

function rotate(dir: string, path: string): void {
  try {
    renameSync(path, `${path}.${Date.now()}`);
  } catch {
    return; // another hook rotated it first
  }
  try {
    const old = readdirSync(dir)
      .filter((n) => n.startsWith(`${HOOK_LOG_NAME}.`) && /^\d+$/.test(n.slice(HOOK_LOG_NAME.length + 1)))
      .sort((a, b) => Number(a.slice(HOOK_LOG_NAME.length + 1)) - Number(b.slice(HOOK_LOG_NAME.length + 1)));
    for (const n of old.slice(0, Math.max(0, old.length - KEEP_ROTATED))) unlinkSync(join(dir, n));
  } catch { /* best effort */ }
}

export function appendHookRecord(rec: HookRecord, env: NodeJS.ProcessEnv): void {
  try {
    const dir = logsDir(env);
    // Only into the user's own folder, never through a symlink (hook/trust.ts).
    if (dirTrust(dir) === 'untrusted' || dirTrust(homeDir(env)) === 'untrusted') return;
    ensureDir(dir);
    const path = join(dir, HOOK_LOG_NAME);
    const fd = openSync(path, SAFE_APPEND_FLAGS, 0o600);
    let size = 0;
    try {
      writeSync(fd, JSON.stringify(rec) + '\n');
      size = fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
    if (size > ROTATE_BYTES) rotate(dir, path);
  } catch { /* logging never breaks the prompt */ }
}

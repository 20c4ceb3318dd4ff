/**
 * Uptake of the live Past fixes (core/uptake.ts), for `soak report` and the report page: each
 * tool-channel Past fix the hook printed (or would have, in soak) — one per tool call, from
 * logs/hook.jsonl — looked up in the session's transcript (under the transcripts root, read
 * now) and in the fixes file it came from (`<home>/fixes/<key>.json`, by its offer id
 * `fix-<key>-<chunkId>`: the fix line it printed). Confirmed: the session then ran that fix
 * and got the failing call's intent through; with the tool steps in between. Read-only. An
 * offer whose transcript or fixes file is gone is counted, never confirmed, and said so.
 */
import { closeSync, openSync, readFileSync, readSync, fstatSync } from 'node:fs';
import type { FixOffer } from '../shared/types.js';
import { fixPath } from '../shared/paths.js';
import { parseLine } from '../transcript/records.js';
import { ToolStepTracker, type ToolStep } from '../transcript/tool-steps.js';
import { UPTAKE_LOOKAHEAD_STEPS, fixLineOf, offeredFix, stepKeys, uptake } from '../core/uptake.js';
import { findTranscript } from './transcript-locate.js';
import { byChannel, type HookLine } from './channel-records.js';
import { SHOWN_OUTCOMES } from './soak-figures.js';

/** Largest transcript read whole for one session's uptake (bigger ones: only this tail). */
export const MAX_UPTAKE_READ_BYTES = 64 * 1024 * 1024;

export interface LiveUptakeRow {
  session: string;
  tool_use_id: string | null;
  step: number | null;
  offer_id: string;
  handle: string;
  confidence: number;
  outcome: string;
  ts: number;
  /** The reason line the hook printed (from the fixes file), null when the file lost it. */
  reason: string | null;
  confirmed: boolean;
  steps_between: number | null;
  /** Why it could not be judged: the transcript or the fix is gone (null: judged). */
  unread: 'no-transcript' | 'no-call' | 'no-fix' | null;
}

export interface LiveUptake {
  past_fix_offers: number;
  confirmed_offers: number;
  steps_saved: number;
  /** Offers that could not be judged (transcript or fix gone): counted, not confirmed. */
  unread: number;
  rows: LiveUptakeRow[];
}

/** The fix an offer id names, from its fixes file (`fix-<key>-<chunkId>`). */
export function fixOfOffer(offerId: string, env: NodeJS.ProcessEnv): FixOffer | null {
  const m = /^fix-([0-9a-f]{14})-\d+$/.exec(offerId);
  const p = m ? fixPath(m[1], env) : null;
  if (!p) return null;
  try {
    const file = JSON.parse(readFileSync(p, 'utf8')) as { fixes?: FixOffer[] };
    return file.fixes?.find((f) => f?.offer?.id === offerId) ?? null;
  } catch {
    return null;
  }
}

/** Every main-lane tool step of a transcript (its last MAX_UPTAKE_READ_BYTES). */
function stepsOf(path: string): ToolStep[] {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - MAX_UPTAKE_READ_BYTES);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    const tracker = new ToolStepTracker();
    const out: ToolStep[] = [];
    let at = 0;
    while (at < buf.length) {
      let nl = buf.indexOf(10, at);
      if (nl < 0) nl = buf.length;
      out.push(...tracker.push(parseLine(buf.toString('utf8', at, nl)), start + at, start + nl + 1));
      at = nl + 1;
    }
    return out;
  } finally {
    closeSync(fd);
  }
}

/** Uptake of every shown tool-channel Past fix in `hook` (one per tool call). */
export function liveUptake(hook: readonly HookLine[], transcriptsRoot: string, env: NodeJS.ProcessEnv): LiveUptake {
  const seen = new Set<string>();
  const offers = byChannel(hook).channels.tool.filter((r) => {
    if (!SHOWN_OUTCOMES.has(r.outcome) || r.type !== 'past-fix' || !r.session || !r.offer_id) return false;
    const k = `${r.session}\u0000${r.tool_use_id ?? r.step ?? r.ts}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const steps = new Map<string, ToolStep[] | null>();
  const rows: LiveUptakeRow[] = offers.map((r) => {
    const fix = fixOfOffer(r.offer_id!, env);
    const row: LiveUptakeRow = {
      session: r.session!, tool_use_id: r.tool_use_id ?? null, step: r.step ?? null, offer_id: r.offer_id!, handle: r.handle ?? '', confidence: r.confidence ?? 0,
      outcome: r.outcome, ts: r.ts, reason: fix?.offer.reason ?? null, confirmed: false, steps_between: null, unread: null,
    };
    if (!steps.has(row.session)) {
      const path = findTranscript(transcriptsRoot, row.session);
      let list: ToolStep[] | null = null;
      try {
        list = path ? stepsOf(path) : null;
      } catch {
        list = null;
      }
      steps.set(row.session, list);
    }
    const list = steps.get(row.session);
    if (!list) return { ...row, unread: 'no-transcript' };
    const at = list.findIndex((s) => (row.tool_use_id ? s.toolUseId === row.tool_use_id : s.step === row.step));
    if (at < 0) return { ...row, unread: 'no-call' };
    if (!fix) return { ...row, unread: 'no-fix' };
    const failing = stepKeys(list[at]);
    const u = uptake({ after: list.slice(at + 1, at + 1 + UPTAKE_LOOKAHEAD_STEPS), fix: offeredFix(fixLineOf(fix.offer.reason), failing), failing });
    return { ...row, ...u };
  });
  const confirmed = rows.filter((r) => r.confirmed);
  return {
    past_fix_offers: rows.length,
    confirmed_offers: confirmed.length,
    steps_saved: confirmed.reduce((n, r) => n + (r.steps_between ?? 0), 0),
    unread: rows.filter((r) => r.unread).length,
    rows,
  };
}

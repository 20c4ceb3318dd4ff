/**
 * Recordings for replay: which transcript files a target holds, and each file's exchanges
 * with the times the daemon and the hook would have seen them.
 *
 * Files: a `.jsonl` file, or every `*.jsonl` under a folder (recursively; hidden folders and
 * node_modules skipped), sorted by path. Files under a `subagents/` folder (Claude Code's
 * `<session>/subagents/agent-*.jsonl`) are marked `subagent` (sidechain sessions).
 *
 * Exchanges: the same pieces the daemon reads with (transcript/lines.ts scanLines,
 * transcript/records.ts parseLine, transcript/exchanges.ts ExchangeAssembler), fed a whole
 * file. Record timestamps give the clock: an exchange settles at its last record's time.
 * A prompt record without a timestamp would get the assembler's wall clock (Date.now()), which
 * is not reproducible: such exchanges get a synthetic time (the previous known time plus
 * SYNTHETIC_STEP_MS, from SYNTHETIC_EPOCH when the file has none) and are counted.
 */
import { readdirSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { ExchangeAssembler, type AssembledExchange } from '../transcript/exchanges.js';
import { parserForFile } from '../transcript/host.js';
import { scanLines } from '../transcript/lines.js';
import { ToolStepTracker, type ToolStep } from '../transcript/tool-steps.js';
import { isSubagentPath } from '../core/workers.js';
import type { TimedExchange } from './replay-rows.js';

/** Time step for exchanges whose records carry no timestamp (ms). */
export const SYNTHETIC_STEP_MS = 60_000;
/** Start of the synthetic clock when a file has no timestamp at all (2026-01-01T00:00:00Z). */
export const SYNTHETIC_EPOCH = Date.UTC(2026, 0, 1);
/** Lines longer than this are skipped, as the daemon does by default (bytes). */
export const REPLAY_MAX_LINE_BYTES = 8 * 1024 * 1024;
/** Prompt kinds a person (or Claude Code on their behalf) submits: the hook fires for them. */
const HOOK_PROMPTS = new Set(['human', 'command', 'task-notification']);
const SKIP_DIRS = new Set(['node_modules']);

export interface TranscriptFile {
  path: string;
  /** Relative to the replay target (its base name for a single file). */
  rel: string;
  subagent: boolean;
}

/** The transcripts a target (file or folder) holds; throws with a clear message when none. */
export function findTranscripts(target: string): TranscriptFile[] {
  const root = resolve(target);
  const st = statSync(root);
  if (st.isFile()) return [{ path: root, rel: root.split(sep).pop()!, subagent: isSubagentPath(root) }];
  const out: TranscriptFile[] = [];
  const walk = (dir: string) => {
    let ents;
    try {
      ents = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // an unreadable sub-folder is skipped; the rest replays
    }
    for (const d of ents) {
      if (d.name.startsWith('.')) continue;
      const p = join(dir, d.name);
      if (d.isDirectory()) {
        if (!SKIP_DIRS.has(d.name)) walk(p);
      } else if (d.isFile() && d.name.endsWith('.jsonl')) {
        const rel = relative(root, p).split(sep).join('/');
        out.push({ path: p, rel, subagent: /(^|\/)subagents\//.test(rel) || isSubagentPath(p) });
      }
    }
  };
  walk(root);
  out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return out;
}

/** A tool step with the time the hook (at the failure) and the daemon (its result line) see it. */
export interface TimedStep {
  step: ToolStep;
  /** Epoch ms of its result (the call's time, or the last known time, when absent). */
  at: number;
  /** A record copied from the parent session (resume / fork): no hook ran for it here. */
  copy?: boolean;
}

export interface FileExchanges {
  exchanges: TimedExchange[];
  /** The main lane's tool steps in file order (transcript/tool-steps.ts). */
  steps: TimedStep[];
  /** Exchanges whose prompt had no timestamp (synthetic time used). */
  synthetic: number;
  /** Over-long lines skipped. */
  skippedLines: number;
}

interface RecordTime {
  start: number;
  ts: number | null;
}

/** `"timestamp":"…"` of any line (records the parser drops, e.g. progress, still show activity). */
const TIMESTAMP_RE = /"timestamp"\s*:\s*"([^"]{10,40})"/;

function lineTime(line: string): number | null {
  const m = TIMESTAMP_RE.exec(line);
  if (!m) return null;
  const t = Date.parse(m[1]);
  return Number.isFinite(t) ? t : null;
}

export interface ReadOptions {
  /** Simulate the daemon's settle step (daemon.settleMs): when a reply could be complete
   *  (text, no tool call pending) and the next line came more than this many ms later (by
   *  the lines' own timestamps), the daemon decides provisionally on a copy of the still-open
   *  exchange (for the offer cache) and keeps it open; such copies are emitted as
   *  `provisional` exchanges before the final one. null/undefined = final decisions only. */
  settleMs?: number | null;
}

/** Every exchange of one transcript file, in file order, with its times. */
export async function readTimedExchanges(path: string, opts: ReadOptions = {}): Promise<FileExchanges> {
  const settle = opts.settleMs ?? null;
  let lastLineTime: number | null = null;
  const fh = await open(path, 'r');
  const times: RecordTime[] = [];
  const raw: AssembledExchange[] = [];
  const provisional = new Set<AssembledExchange>();
  const tools = new ToolStepTracker();
  const steps: TimedStep[] = [];
  let skippedLines = 0;
  const parser = await parserForFile(path); // Claude Code or Codex CLI (transcript/host.ts)
  try {
    const size = (await fh.stat()).size;
    const asm = new ExchangeAssembler(parser.host === 'codex' ? { sessionId: parser.fileSessionId } : {});
    for await (const batch of scanLines(fh, { offset: 0, skippingFrom: null }, size, { maxLineBytes: REPLAY_MAX_LINE_BYTES, includeUnterminated: true })) {
      skippedLines += batch.skipped.length;
      for (const l of batch.lines) {
        const rec = parser.line(l.line);
        const at = rec ? rec.timestamp : lineTime(l.line);
        if (settle !== null && at !== null && lastLineTime !== null && at - lastLineTime > settle && asm.settleCandidate) {
          const ex = asm.peek();
          if (ex) {
            raw.push(ex);
            provisional.add(ex);
          }
        }
        if (at !== null) lastLineTime = at;
        if (rec) times.push({ start: l.startOffset, ts: rec.timestamp });
        for (const st of tools.push(rec, l.startOffset, l.endOffset)) steps.push({ step: st, at: st.resultAt ?? st.callAt ?? lastLineTime ?? SYNTHETIC_EPOCH });
        raw.push(...asm.push(rec, l.startOffset, l.endOffset));
      }
      asm.advance(batch.state.offset);
    }
    raw.push(...asm.flushAll());
  } finally {
    await fh.close();
  }
  raw.sort((a, b) => a.startOffset - b.startOffset || a.index - b.index);

  // Times: the opening record's timestamp; settle time = latest timestamp inside the range.
  const firstIndexAt = (offset: number) => {
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid].start < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  let lastKnown: number | null = null;
  let synthetic = 0;
  const seen = new Set<number>();
  const exchanges: TimedExchange[] = raw.map((ex) => {
    const i0 = firstIndexAt(ex.startOffset);
    const opening = times[i0]?.start === ex.startOffset ? times[i0].ts : null;
    let latest: number | null = null;
    for (let i = i0; i < times.length && times[i].start < ex.endOffset; i++) {
      const ts = times[i].ts;
      if (ts !== null && (latest === null || ts > latest)) latest = ts;
    }
    let timestamp: number;
    if (opening !== null) timestamp = opening;
    else {
      synthetic++;
      timestamp = (lastKnown ?? SYNTHETIC_EPOCH) + SYNTHETIC_STEP_MS;
    }
    const settledAt = Math.max(timestamp, latest ?? timestamp);
    lastKnown = Math.max(lastKnown ?? settledAt, settledAt);
    const isProvisional = provisional.has(ex);
    // The hook fires once per typed prompt, at its submission: before the first decision
    // (provisional or final) on that exchange.
    const first = !seen.has(ex.startOffset);
    seen.add(ex.startOffset);
    return {
      exchange: { ...ex, timestamp },
      settledAt,
      hookFires: first && !ex.continuation && !ex.isSidechain && ex.promptKind !== null && HOOK_PROMPTS.has(ex.promptKind),
      ...(isProvisional ? { provisional: true } : {}),
    };
  });
  return { exchanges, steps, synthetic, skippedLines };
}

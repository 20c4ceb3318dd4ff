/**
 * The tool channel's decision on one tool step (transcript/tool-steps.ts ToolStep) of an
 * observed session: a failed call → the Past fix chosen by the hook's own engine (the error
 * signed by shared/tool-signal.ts, its fixes file built from the store's episodes by core/fixes.ts
 * FixIndex — the same files the daemon writes for the hook — and the fix chosen by
 * shared/fix-choice.ts), or a loop inside the turn (the same failing or identical action
 * repeated) → a stall. No warmup: decided by the error, not by the centroid. Pure but for the
 * fixes index it is handed; called by core/pipeline.ts processToolStep, which the daemon and
 * replay share. The result becomes the session's tool cache through core/publish.ts
 * publishToolDecision.
 */
import type { Config, Mode } from '../config/schema.js';
import type { EpisodeReader, StoreReader } from '../store/types.js';
import type { Offer } from '../shared/types.js';
import type { TriggerKind } from '../shared/vocabulary.js';
import { stepCommand, type ToolStep } from '../transcript/tool-steps.js';
import { isCascade } from '../shared/error-class.js';
import { builtinRedactor, type Redactor } from '../shared/redact.js';
import { fixKeys, signError } from '../shared/tool-signal.js';
import { chooseFix } from '../shared/fix-choice.js';
import type { FixIndex, MatchKind } from './fixes.js';

/** Tool steps remembered per session for loop detection. */
export const LOOP_RING = 8;

export type EpisodeLookup = EpisodeReader & Pick<StoreReader, 'keywordSearch' | 'lineage' | 'changeStamp'>;

export interface ToolStepContext {
  sessionId: string;
  cwd: string | null;
  mode: (Mode & { name: string }) | null;
  /** The store's fixes, by key (null: no store). */
  fixes: FixIndex | null;
  /** Chunk ids already offered in this session (its FIFO, shared with the prompt channel). */
  offered: readonly number[];
  /** This session's recent steps, oldest first (updated by the caller after the decision). */
  ring: readonly LoopEntry[];
  config: Pick<Config, 'retrieval'>;
  /** Replays of history: only episodes met before this time (epoch ms) may be offered. */
  asOf?: number;
  /** The session's lineage (other session ids sharing its message uuids): their episodes are
   *  the session's own past, never a Past fix (docs/OFFERS.md "Lineage"). */
  lineage?: readonly string[];
  /** The configured redaction (the indexer's rules: user patterns included); default the
   *  built-in rules. */
  redactor?: Redactor;
  /** Where the session has been working lately (its recent commands and paths), where a fix's
   *  place must show; '' for nothing known. */
  recent?: string;
}

export interface LoopEntry {
  /** Normalized action: tool name and its summary with variable parts as placeholders. */
  action: string;
  isError: boolean;
  sig: string | null;
}

export interface ToolStepResult {
  trigger: TriggerKind | null;
  /** The error's signature (null for no error, a cascade, nothing to sign). */
  sig: string | null;
  match: MatchKind | null;
  offer: Offer | null;
  /** Silence code when offer is null. */
  silence: string | null;
  figures: Record<string, number>;
}

/** An action's identity for loops: its summary without line:column suffixes and spacing
 *  (paths and arguments stay: reading two files is not a loop). */
export function actionKey(name: string, summary: string): string {
  return `${name}|${summary.toLowerCase().replace(/(:\d+)+\b/g, '').replace(/\s+/g, ' ').trim()}`;
}

/** The loop-ring entry of a step. */
export function loopEntry(step: ToolStep, sig: string | null): LoopEntry {
  return { action: actionKey(step.name, step.summary), isError: step.isError, sig };
}

/** The same action `window` times in a row, every time failing (or every time identical). */
export function isLoop(ring: readonly LoopEntry[], next: LoopEntry, window: number): boolean {
  if (window < 2 || ring.length < window - 1) return false;
  const last = [...ring.slice(-(window - 1)), next];
  if (!last.every((e) => e.action === last[0].action)) return false;
  if (last.every((e) => e.isError)) return last.every((e) => e.sig === last[0].sig);
  return last.every((e) => !e.isError);
}

/** Decide on one tool step of an observed session whose mode's tool channel is not off. */
export function decideToolStep(step: ToolStep, ctx: ToolStepContext, stallWindow: number): ToolStepResult & { entry: LoopEntry } {
  const cascade = step.isError && isCascade(step.resultText);
  // Signed as the hook and the indexer sign it (shared/tool-signal.ts).
  const signal = step.isError && !cascade ? signError(step.resultText, step.cwd ?? step.callCwd ?? null, stepCommand(step), ctx.redactor ?? builtinRedactor(), step.name) : null;
  const sig = signal?.kind === 'error' ? signal.sig : null;
  const entry = loopEntry(step, sig);
  const loop = isLoop(ctx.ring, entry, stallWindow);
  const figures: Record<string, number> = { tool_error: step.isError ? 1 : 0, tool_loop: loop ? 1 : 0 };
  const out = (r: Partial<ToolStepResult>): ToolStepResult & { entry: LoopEntry } => ({
    trigger: null, sig, match: null, offer: null, silence: null, ...r, figures: { ...figures, ...r.figures }, entry,
  });
  if (!step.isError && !loop) return out({ silence: 'no-error' });
  if (step.isError && !sig) return out({ silence: cascade ? 'cascade' : 'no-signature' });
  const trigger: TriggerKind = loop ? 'stall' : 'error';
  if (!ctx.fixes) return out({ trigger, silence: 'no-store' });
  if (signal?.kind !== 'error') return out({ trigger, silence: 'loop-without-error' });
  // The hook's rule (shared/error-class.ts): no Past fix for a generic error.
  if (signal.generic) return out({ trigger, silence: 'generic-error' });
  for (const key of fixKeys(signal)) {
    const file = ctx.fixes.file(key, ctx.asOf);
    if (!file) continue;
    const match: MatchKind = key === signal.sig ? 'exact' : 'line';
    const chosen = chooseFix({
      file, key, signal, sessionId: ctx.sessionId, cwd: ctx.cwd, lineage: ctx.lineage ?? [], recent: ctx.recent ?? '',
      seen: (o) => ctx.offered.includes(o.chunkId),
    });
    if ('silence' in chosen) return out({ trigger, match, silence: chosen.silence, figures: { pastfix_fixes: file.fixes.length } });
    // Shown already in this session: the FIFO it shares with the prompt channel holds it.
    if (ctx.offered.includes(chosen.offer.chunkId)) return out({ trigger, match, silence: 'repeat' });
    return out({ trigger, match, offer: chosen.offer, figures: { pastfix_fixes: file.fixes.length } });
  }
  return out({ trigger, silence: 'no-fix' });
}

/**
 * The summary of a replay (`active-brain replay`, `backtest`): its JSON shape and the pure
 * count over the rows eval/replay.ts produced — per channel, the offers decided and the ones
 * the hook let through, silences and hook verdicts by reason code, tool errors by kind, and
 * the audit's self-lineage and already-in-session counts.
 */
import type { OfferType } from '../shared/types.js';
import { TOOL_ERROR_KINDS, type ToolErrorKind } from './tool-error-kinds.js';
import { hookShows, type ReplayRow } from './replay-rows.js';
import { bump, offerTypeCounts, sortedCounts } from './counts.js';
import { round4 } from './metrics.js';

export interface SessionSummary {
  file: string;
  session: string;
  sidechain: boolean;
  exchanges: number;
  /** Prompts a person typed (the hook ran for them; not injected, not seed). */
  typed_prompts?: number;
  would_fire: number;
  printed: number;
}

export interface ReplaySummary {
  sessions: number;
  exchanges: number;
  would_fire: number;
  /** would_fire / main_exchanges (exchanges of sessions that may receive offers at all). */
  fire_rate: number;
  by_type: Record<OfferType, number>;
  /** Offers decided in sidechain / subagent / worker sessions (target 0). */
  sidechain_offers: number;
  main_sessions: number;
  main_exchanges: number;
  sidechain_sessions: number;
  sidechain_exchanges: number;
  /** Offers the hook's gates let through at the next prompt (printed live, or would-fire in soak). */
  printed: number;
  printed_rate: number;
  by_trigger: Record<string, number>;
  by_silence: Record<string, number>;
  /** For offers: the hook's verdict (reason codes). */
  by_hook: Record<string, number>;
  /** Exchanges whose prompt had no timestamp (a synthetic, reproducible time was used). */
  synthetic_times: number;
  skipped_lines: number;
  seed: number;
  per_session: SessionSummary[];
  /** Files that could not be read (`rel: code`), skipped. */
  unreadable_files?: string[];
  /** Exchanges and tool steps of resumed / forked files that are copies of the parent's
   *  records (eval/offer-audit.ts readFileLineage): replayed as seed, no hook ran for them. */
  copied_exchanges?: number;
  copied_tool_steps?: number;
  /** The tool channel: main-lane tool steps, their errors, and what the hook did there. */
  tool_steps: number;
  tool_errors: number;
  /** tool_errors by kind (eval/tool-error-kinds.ts): `signed` is what `eval pastfix` counts
   *  as the errors the hook sees; the rest say why the two totals differ. */
  tool_errors_by_kind: Record<ToolErrorKind, number>;
  /** Tool errors in sessions that get no offers, by kind, not in tool_errors: worker sessions
   *  (`claude -p`, a worker cwd) and subagent transcripts. `eval pastfix` counts the workers'
   *  signed errors too (it replays every session of a project folder), not the subagents'. */
  tool_errors_unoffered: { workers: Record<ToolErrorKind, number>; subagents: Record<ToolErrorKind, number> };
  /** Tool-channel offers the hook let through (printed live, or would-fire in soak). */
  tool_would_fire: number;
  /** Per 100 main-lane tool steps. */
  tool_offers_per_100_steps: number;
  /** Tool steps' silences and the hook's verdicts at tool events, by reason code. */
  tool_by_silence: Record<string, number>;
  tool_by_hook: Record<string, number>;
  /** Prompts a person typed in main sessions (the denominator of `printed_per_typed_prompt`). */
  typed_prompts: number;
  /** Prompt-channel offers the hook let through, per typed prompt (target ≤ 0.03). */
  printed_per_typed_prompt: number;
  /** Offers, per channel, whose chunk is from the session's own lineage (the audit reads the
   *  lineage from the transcript files, not from the store): all decided offers, and those
   *  the hook let through (`*_shown`). Target 0. */
  self_lineage_offers: ChannelCounts;
  /** Offers, per channel, whose chunk's text the session already held (eval/offer-audit.ts). */
  already_in_session_offers: ChannelCounts;
}

export interface ChannelCounts {
  prompt: number;
  tool: number;
  prompt_shown: number;
  tool_shown: number;
}

/** A subagent transcript (`<session>/subagents/agent-*.jsonl`), by its path. */
const isSubagentFile = (file: string) => /(^|[\\/])subagents[\\/]/.test(file);

/** The summary of replayed rows (pure). */
export function summarize(rows: ReplayRow[], perSession: SessionSummary[], extra: { synthetic: number; skipped: number; seed: number }): ReplaySummary {
  const byType = offerTypeCounts();
  const byTrigger: Record<string, number> = {};
  const bySilence: Record<string, number> = {};
  const byHook: Record<string, number> = {};
  const sideFiles = new Set(perSession.filter((s) => s.sidechain).map((s) => s.file));
  let wouldFire = 0;
  let printed = 0;
  let sidechainOffers = 0;
  let mainExchanges = 0;
  let exchanges = 0;
  // An exchange may be decided provisionally (settle points) and then finally: it counts
  // once, and fires when any of its decisions offered.
  const fired = new Set<string>();
  let toolSteps = 0;
  let toolErrors = 0;
  const kinds = () => Object.fromEntries(TOOL_ERROR_KINDS.map((k) => [k, 0])) as Record<ToolErrorKind, number>;
  const toolErrorsByKind = kinds();
  const unoffered = { workers: kinds(), subagents: kinds() };
  let toolShown = 0;
  const toolSilence: Record<string, number> = {};
  const toolHook: Record<string, number> = {};
  const selfLineage: ChannelCounts = { prompt: 0, tool: 0, prompt_shown: 0, tool_shown: 0 };
  const already: ChannelCounts = { prompt: 0, tool: 0, prompt_shown: 0, tool_shown: 0 };
  for (const r of rows) {
    const side = sideFiles.has(r.file);
    if (r.offer && !side && !r.sidechain) {
      const shown = hookShows(r.hook);
      if (r.self_lineage) {
        selfLineage[r.channel]++;
        if (shown) selfLineage[`${r.channel}_shown`]++;
      }
      if (r.already_in_session) {
        already[r.channel]++;
        if (shown) already[`${r.channel}_shown`]++;
      }
    }
    if (r.channel === 'tool') {
      if (r.seed) continue; // a copied record: no event of this session (copied_tool_steps)
      if (side || r.sidechain) {
        if (r.offer) sidechainOffers++;
        if (r.tool_error && r.tool_error_kind) unoffered[isSubagentFile(r.file) ? 'subagents' : 'workers'][r.tool_error_kind]++;
        continue;
      }
      toolSteps++;
      if (r.tool_error) toolErrors++;
      if (r.tool_error && r.tool_error_kind) toolErrorsByKind[r.tool_error_kind]++;
      if (r.offer) {
        bump(toolHook, r.hook ?? 'unknown');
        if (hookShows(r.hook)) toolShown++;
      } else if (r.tool_error && r.silence) bump(toolSilence, r.silence);
      continue;
    }
    if (!r.provisional) {
      exchanges++;
      if (!side && !r.sidechain) mainExchanges++;
    }
    if (r.trigger) bump(byTrigger, r.trigger);
    if (r.offer) {
      const key = `${r.file}\u0000${r.turn}`;
      if (!fired.has(key)) {
        fired.add(key);
        wouldFire++;
        byType[r.offer.type]++;
      }
      if (side || r.sidechain) sidechainOffers++;
      bump(byHook, r.hook ?? 'unknown');
      if (hookShows(r.hook)) printed++;
    }
  }
  // Silences count exchanges, by their final decision's reason, so that silences plus
  // would_fire add up to exchanges (an exchange whose provisional look offered has fired).
  for (const r of rows) {
    if (r.channel !== 'prompt' || r.provisional || fired.has(`${r.file}\u0000${r.turn}`)) continue;
    bump(bySilence, r.silence ?? 'unknown');
  }
  const sidechainSessions = perSession.filter((s) => s.sidechain).length;
  const typedPrompts = perSession.filter((s) => !s.sidechain).reduce((n, s) => n + (s.typed_prompts ?? 0), 0);
  return {
    sessions: perSession.length,
    exchanges,
    would_fire: wouldFire,
    fire_rate: mainExchanges ? round4(wouldFire / mainExchanges) : 0,
    by_type: byType,
    sidechain_offers: sidechainOffers,
    main_sessions: perSession.length - sidechainSessions,
    main_exchanges: mainExchanges,
    sidechain_sessions: sidechainSessions,
    sidechain_exchanges: exchanges - mainExchanges,
    printed,
    printed_rate: mainExchanges ? round4(printed / mainExchanges) : 0,
    by_trigger: sortedCounts(byTrigger),
    by_silence: sortedCounts(bySilence),
    by_hook: sortedCounts(byHook),
    synthetic_times: extra.synthetic,
    skipped_lines: extra.skipped,
    seed: extra.seed,
    per_session: perSession,
    tool_steps: toolSteps,
    tool_errors: toolErrors,
    tool_errors_by_kind: toolErrorsByKind,
    tool_errors_unoffered: unoffered,
    tool_would_fire: toolShown,
    tool_offers_per_100_steps: toolSteps ? Math.round((10000 * toolShown) / toolSteps) / 100 : 0,
    tool_by_silence: sortedCounts(toolSilence),
    tool_by_hook: sortedCounts(toolHook),
    typed_prompts: typedPrompts,
    printed_per_typed_prompt: typedPrompts ? round4(printed / typedPrompts) : 0,
    self_lineage_offers: selfLineage,
    already_in_session_offers: already,
  };
}

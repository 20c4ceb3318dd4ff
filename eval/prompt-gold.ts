/**
 * A judged prompt gold (`eval prompts --gold FILE`; format, scoring and rubric in
 * ../shared/eval/claude-code-real/prompt-gold/README.md): parsing with clear errors, the check
 * that it belongs to the transcripts being replayed, and the scoring of one session's typed
 * prompts against its items. Pure: eval/prompts.ts reads the files, replays the sessions and
 * sums the per-session scores.
 *
 * Scoring (the README's words):
 *   recall      of `needs_past` prompts, those where the hook shows, at that prompt, an offer
 *               whose chunk comes from one of the item's `sources` sessions;
 *   precision   of shown offers at judged prompts, those from a `sources` session; an offer at
 *               a prompt with `needs_past: false`, from a candidate judged `N`, or from
 *               another session is wrong;
 *   unjudged    shown offers at prompts the gold does not name (they get read);
 *   offer rate  shown offers ÷ typed prompts.
 */
import { handleSession } from './pastfix-gold.js';
import { GoldError, checkGoldItems, readGoldItems } from './pastfix-gold.js';
import { isObj } from '../shared/json-object.js';

export { GoldError };

export const SOURCE_TYPES = ['fact', 'prior-attempt', 'decision', 'past-fix'] as const;

/** What happened at one gold prompt or one shown offer. */
export const PROMPT_OUTCOMES = [
  'hit', // a prompt that needs the past shown an offer from one of its sources
  'miss', // a prompt that needs the past with nothing shown
  'silent', // a prompt that needs nothing, nothing shown: the right answer
  'wrong-offer', // a shown offer at a judged prompt that is not right there
  'unjudged-offer', // a shown offer at a prompt the gold does not name
] as const;
export type PromptOutcome = (typeof PROMPT_OUTCOMES)[number];

export interface PromptSource {
  session: string;
  uuid?: string;
  type?: string;
}

export interface PromptGoldItem {
  id: string;
  session: string;
  /** The prompt record's uuid (the key). */
  uuid: string;
  needs_past: boolean;
  sources: PromptSource[];
  /** Candidates the reviewer judged: W (worth showing) or N. */
  judged: Array<{ session: string; uuid: string; verdict: 'W' | 'N' }>;
}

export interface PromptGold {
  project: string;
  items: PromptGoldItem[];
}

const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Parse a prompt gold's text; throws GoldError naming the first bad item. */
export function parsePromptGold(text: string, file: string): PromptGold {
  const v = readGoldItems(text, file, 'prompt gold', '../shared/eval/claude-code-real/prompt-gold/README.md');
  const items: PromptGoldItem[] = [];
  for (const { raw, where, index: i } of v.items) {
    if (!isStr(raw.session) || !isStr(raw.uuid)) throw new GoldError(`${where} needs "session" and "uuid" (the prompt record's)`);
    if (typeof raw.needs_past !== 'boolean') throw new GoldError(`${where} needs "needs_past" (true or false)`);
    const sources = Array.isArray(raw.sources) ? raw.sources : [];
    if (!sources.every((s) => isObj(s) && isStr(s.session))) throw new GoldError(`${where} has a source without "session"`);
    if (raw.needs_past && !sources.length) throw new GoldError(`${where} needs the past but names no source`);
    const judged = Array.isArray(raw.judged_candidates) ? raw.judged_candidates : [];
    if (!judged.every((c) => isObj(c) && isStr(c.session) && isStr(c.uuid) && (c.verdict === 'W' || c.verdict === 'N'))) {
      throw new GoldError(`${where} has a judged candidate without "session", "uuid" and a verdict W or N`);
    }
    items.push({
      id: isStr(raw.id) ? raw.id : `${v.project}:${i}`,
      session: raw.session,
      uuid: raw.uuid,
      needs_past: raw.needs_past,
      sources: (sources as Array<Record<string, unknown>>).map((s) => ({ session: s.session as string, ...(isStr(s.uuid) ? { uuid: s.uuid } : {}), ...(isStr(s.type) ? { type: s.type } : {}) })),
      judged: judged as PromptGoldItem['judged'],
    });
  }
  return { project: v.project, items };
}

/**
 * The gold must name this project and only prompts that exist in it: the first item whose
 * session or prompt is absent is an error. `prompts`: session id → its prompt records' uuids.
 */
export function checkPromptGold(gold: PromptGold, project: string, prompts: ReadonlyMap<string, ReadonlySet<string>>): void {
  checkGoldItems(gold.project, project, gold.items, prompts, (it) => it.uuid, (it) => `prompt ${it.uuid}`);
}

/** The hook at one typed prompt, as the scorer needs it. */
export interface ScoredPrompt {
  uuid: string;
  /** The offer the hook showed here (printed or would-fire), with the exchange its chunk
   *  was cut from when known (the prompt uuid of that earlier exchange). */
  shown: { handle: string; exchange: string | null; type: string; confidence: number; line: string | null; hook: string } | null;
  /** Nothing shown: the hook's reason code, and the daemon's silence behind the cache. */
  reason: string | null;
  daemon: string | null;
}

export interface PromptEvent {
  session: string;
  uuid: string;
  item: string | null;
  needs_past: boolean | null;
  handle: string | null;
  /** The offered chunk's exchange (its prompt uuid), when known. */
  exchange: string | null;
  type: string | null;
  confidence: number | null;
  reason: string | null;
  daemon: string | null;
  outcome: PromptOutcome;
}

export interface PromptTally {
  judged_prompts: number;
  needs_past: number;
  hits: number;
  misses: number;
  shown_offers: number;
  right_offers: number;
  wrong_offers: number;
  unjudged_offers: number;
}

export const emptyPromptTally = (): PromptTally => ({ judged_prompts: 0, needs_past: 0, hits: 0, misses: 0, shown_offers: 0, right_offers: 0, wrong_offers: 0, unjudged_offers: 0 });

/** Is a shown offer right at `it`? From a source session, and not from a candidate of that
 *  session the reviewer judged N (when the offered chunk's exchange is known). */
export function rightAt(it: PromptGoldItem, handle: string, exchange: string | null): boolean {
  if (!it.needs_past) return false;
  const session = handleSession(handle);
  if (!it.sources.some((s) => s.session === session)) return false;
  if (exchange && it.sources.some((s) => s.session === session && s.uuid === exchange)) return true;
  return !(exchange && it.judged.some((c) => c.session === session && c.uuid === exchange && c.verdict === 'N'));
}

/** Score one session's typed prompts against its items; adds to `tally`, returns the events. */
export function scorePrompts(session: string, prompts: readonly ScoredPrompt[], items: readonly PromptGoldItem[], tally: PromptTally): PromptEvent[] {
  const byUuid = new Map(items.map((it) => [it.uuid, it]));
  const events: PromptEvent[] = [];
  for (const p of prompts) {
    const it = byUuid.get(p.uuid);
    if (!it && !p.shown) continue;
    const base = {
      session, uuid: p.uuid, item: it?.id ?? null, needs_past: it?.needs_past ?? null,
      handle: p.shown?.handle ?? null, exchange: p.shown?.exchange ?? null, type: p.shown?.type ?? null, confidence: p.shown?.confidence ?? null,
      reason: p.shown ? null : p.reason, daemon: p.shown ? null : p.daemon,
    };
    let outcome: PromptOutcome;
    if (it) {
      tally.judged_prompts++;
      if (it.needs_past) tally.needs_past++;
      const right = !!p.shown && rightAt(it, p.shown.handle, p.shown.exchange);
      if (it.needs_past) {
        if (right) tally.hits++;
        else tally.misses++;
      }
      outcome = right ? 'hit' : p.shown ? 'wrong-offer' : it.needs_past ? 'miss' : 'silent';
    } else outcome = 'unjudged-offer';
    if (p.shown) {
      tally.shown_offers++;
      if (outcome === 'hit') tally.right_offers++;
      else if (outcome === 'wrong-offer') tally.wrong_offers++;
      else tally.unjudged_offers++;
    }
    events.push({ ...base, outcome });
  }
  // A gold prompt the hook never met here (the replay took it for a copy or an injected
  // message): nothing was shown there.
  const met = new Set(prompts.map((p) => p.uuid));
  for (const it of items) {
    if (met.has(it.uuid)) continue;
    tally.judged_prompts++;
    if (it.needs_past) {
      tally.needs_past++;
      tally.misses++;
    }
    events.push({
      session, uuid: it.uuid, item: it.id, needs_past: it.needs_past, handle: null, exchange: null, type: null, confidence: null,
      reason: 'no-hook-event', daemon: null, outcome: it.needs_past ? 'miss' : 'silent',
    });
  }
  return events;
}

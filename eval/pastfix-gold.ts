/**
 * A judged Past-fix gold (`eval pastfix --gold FILE`; format in
 * ../shared/eval/claude-code-real/README.md): parsing with clear errors, the check that it
 * belongs to the transcripts being replayed, and the scoring of one session's replayed
 * tool-channel rows against its items. Pure: the caller (eval/pastfix.ts) reads the files,
 * replays the sessions and sums the per-session scores.
 *
 * Scoring (the gold README's words):
 *   hookable recurrence  an item with verdict `recurrence` and `hookable: true`;
 *   hit                  the hook shows (prints live, or would fire in soak) an offer at that
 *                        call or the next tool event whose chunk comes from one of the item's
 *                        `sources` sessions;
 *   late                 not a hit, but a daemon decision at that step or later in the session
 *                        found a chunk of a source session (it could only help later);
 *   precision            shown offers at judged items: right when at a `recurrence` and from
 *                        one of its sources; an offer at `unresolved-recurrence`, `different`
 *                        or `generic` is wrong; one from a `look_alikes` session is
 *                        `unconfirmed` (counted neither right nor wrong);
 *   unjudged offers      shown offers at calls the gold does not name.
 */
import { basename } from 'node:path';
import { isObj } from '../shared/json-object.js';

export const GOLD_VERDICTS = ['recurrence', 'unresolved-recurrence', 'different', 'generic'] as const;
export type GoldVerdict = (typeof GOLD_VERDICTS)[number];

/** What happened at one gold item or one shown offer. */
export const PASTFIX_OUTCOMES = [
  'hit', // a hookable recurrence shown its source's fix in time
  'late', // found only by a later daemon decision
  'miss', // a hookable recurrence with nothing right shown
  'unhookable', // a recurrence at a call that fires no hook (`<tool_use_error>`)
  'silent', // a non-recurrence item with nothing shown: the right answer
  'wrong-offer', // a shown offer at a judged item that is not right there
  'generic-offer', // a shown offer at a `generic` item
  'unconfirmed-offer', // a shown offer from a look-alike the reviewer did not confirm
  'unjudged-offer', // a shown offer at a call the gold does not name
] as const;
export type PastfixOutcome = (typeof PASTFIX_OUTCOMES)[number];

export interface GoldSource {
  session: string;
  tool_use_id?: string;
  fix_step?: number;
}

export interface GoldItem {
  id: string;
  session: string;
  tool_use_id: string;
  step: number;
  tool: string;
  hookable: boolean;
  verdict: GoldVerdict;
  sources: GoldSource[];
  look_alikes: string[];
  fix?: string;
}

export interface PastfixGold {
  project: string;
  items: GoldItem[];
}

/** A gold file that cannot be used: the message says what is wrong and where. */
export class GoldError extends Error {}

const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Parse a gold file's text; throws GoldError naming the first bad item. */
/**
 * A judged gold file's JSON: its project and its items, each an object, with where it is for
 * errors (`kind` and `format` name the file's kind and where its format is said). Shared by
 * the Past-fix gold and the prompt gold (eval/prompt-gold.ts). Throws GoldError.
 */
export function readGoldItems(text: string, file: string, kind: string, format: string): { project: string; items: Array<{ raw: Record<string, unknown>; where: string; index: number }> } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new GoldError(`${file} is not JSON (${(e as Error).message}); give a ${kind} in the format of ${format}`);
  }
  if (!isObj(v) || !isStr(v.project) || !Array.isArray(v.items)) {
    throw new GoldError(`${file} is not a ${kind}: it needs "project" (a string) and "items" (an array)`);
  }
  return {
    project: v.project,
    items: v.items.map((raw: unknown, index: number) => {
      const where = `${file}: item ${index}${isObj(raw) && isStr(raw.id) ? ` (${raw.id})` : ''}`;
      if (!isObj(raw)) throw new GoldError(`${where} is not an object`);
      return { raw, where, index };
    }),
  };
}

/**
 * A gold must name this project and only records that exist in it: the first item whose
 * session or record is absent is an error (a gold of another project, or of other files).
 * `have`: session id → the keys of its records; `keyOf` an item's key; `what` how the error
 * names the item's record.
 */
export function checkGoldItems<T extends { id: string; session: string }>(goldProject: string, project: string, items: readonly T[], have: ReadonlyMap<string, ReadonlySet<string>>, keyOf: (it: T) => string, what: (it: T) => string): void {
  if (goldProject !== project) {
    throw new GoldError(`the gold is for project "${goldProject}", but the transcripts are project "${project}": give the folder of that project, or its own gold`);
  }
  for (const it of items) {
    const keys = have.get(it.session);
    if (!keys) throw new GoldError(`gold item ${it.id} names session ${it.session}, which is not in project "${project}"`);
    if (!keys.has(keyOf(it))) throw new GoldError(`gold item ${it.id} names ${what(it)} of session ${it.session}, which that session does not have`);
  }
}

export function parseGold(text: string, file: string): PastfixGold {
  const v = readGoldItems(text, file, 'Past-fix gold', '../shared/eval/claude-code-real/README.md');
  const items: GoldItem[] = [];
  for (const { raw, where, index: i } of v.items) {
    if (!isStr(raw.session) || !isStr(raw.tool_use_id)) throw new GoldError(`${where} needs "session" and "tool_use_id"`);
    if (!(GOLD_VERDICTS as readonly unknown[]).includes(raw.verdict)) {
      throw new GoldError(`${where} has verdict ${JSON.stringify(raw.verdict)}; expected one of ${GOLD_VERDICTS.join(', ')}`);
    }
    if (typeof raw.hookable !== 'boolean') throw new GoldError(`${where} needs "hookable" (true or false)`);
    const sources = Array.isArray(raw.sources) ? raw.sources : [];
    if (!sources.every((s) => isObj(s) && isStr(s.session))) throw new GoldError(`${where} has a source without "session"`);
    items.push({
      id: isStr(raw.id) ? raw.id : `${v.project}:${i}`,
      session: raw.session,
      tool_use_id: raw.tool_use_id,
      step: typeof raw.step === 'number' ? raw.step : -1,
      tool: typeof raw.tool === 'string' ? raw.tool : '',
      hookable: raw.hookable,
      verdict: raw.verdict as GoldVerdict,
      sources: sources as GoldSource[],
      look_alikes: Array.isArray(raw.look_alikes) ? raw.look_alikes.filter(isStr) : [],
      ...(typeof raw.fix === 'string' ? { fix: raw.fix } : {}),
    });
  }
  return { project: v.project, items };
}

/**
 * The gold must name this project and only calls that exist in it: the first item whose
 * session or tool call is absent is an error (a gold of another project, or of other files).
 * `calls`: session id → the tool_use ids of its main-lane calls.
 */
export function checkGold(gold: PastfixGold, project: string, calls: ReadonlyMap<string, ReadonlySet<string>>): void {
  checkGoldItems(gold.project, project, gold.items, calls, (it) => it.tool_use_id, (it) => `step ${it.step} (tool_use_id ${it.tool_use_id})`);
}

/** The session a chunk handle comes from: `sessions/<project>/<session>.jsonl#N` → `<session>`. */
export function handleSession(handle: string): string {
  const file = handle.split('#')[0] ?? '';
  return basename(file).replace(/\.jsonl$/, '');
}

/** One replayed tool step, as the scorer needs it. */
export interface ScoredStep {
  step: number;
  toolUseId: string | null;
  /** The hook ran for it (a failure it sees, or a PostToolUse it takes). */
  hookEvent: boolean;
  /** The result is a person's or the protocol's (rejection, interrupt, sibling cancelled). */
  rejection: boolean;
  /** The offer the hook showed here (printed or would-fire), if any. */
  shown: { handle: string; hook: string; confidence: number; /** The offer's reason line ("fixed by …"). */ text: string } | null;
  /** Handles the daemon's decision here found (shown or not). */
  decided: string[];
  /** What the hook (else the daemon) said here when nothing was shown: a reason code. */
  reason: string | null;
}

export interface PastfixEvent {
  session: string;
  step: number;
  tool_use_id: string | null;
  /** The gold item (null for an offer at a call the gold does not name). */
  item: string | null;
  verdict: GoldVerdict | null;
  hookable: boolean | null;
  handle: string | null;
  hook: string | null;
  /** The shown offer's reason line ("fixed by … — same … error in session …"), null when none was shown. */
  text: string | null;
  /** Nothing shown: the hook's (else the daemon's) reason code at the call. */
  reason: string | null;
  outcome: PastfixOutcome;
}

export interface GoldTally {
  hookable_recurrences: number;
  hits: number;
  late: number;
  misses: number;
  shown_offers: number;
  right_offers: number;
  wrong_offers: number;
  generic_offers: number;
  unconfirmed_offers: number;
  unjudged_offers: number;
  rejection_offers: number;
}

export const emptyTally = (): GoldTally => ({
  hookable_recurrences: 0, hits: 0, late: 0, misses: 0, shown_offers: 0, right_offers: 0, wrong_offers: 0,
  generic_offers: 0, unconfirmed_offers: 0, unjudged_offers: 0, rejection_offers: 0,
});

/** Score one session's steps against its gold items; adds to `tally`, returns the events. */
export function scoreSession(session: string, steps: readonly ScoredStep[], items: readonly GoldItem[], tally: GoldTally): PastfixEvent[] {
  const events: PastfixEvent[] = [];
  const byId = new Map(items.map((it) => [it.tool_use_id, it]));
  const idx = new Map<string, number>();
  steps.forEach((s, i) => s.toolUseId && idx.set(s.toolUseId, i));
  /** The next step after i at which the hook ran. */
  const nextHooked = (i: number) => steps.slice(i + 1).find((s) => s.hookEvent) ?? null;
  /** Offers already told (as the item's own event): each shown offer is scored once. */
  const told = new Set<ScoredStep>();
  const fromSources = (it: GoldItem, handle: string) => it.sources.some((s) => s.session === handleSession(handle));
  const fromLookAlike = (it: GoldItem, handle: string) => it.look_alikes.includes(handleSession(handle));
  /** What a shown offer of `handle` is at `it` (none: a call the gold does not name). */
  const judge = (it: GoldItem | undefined, handle: string): PastfixOutcome => {
    if (!it) return 'unjudged-offer';
    if (it.verdict === 'generic') return 'generic-offer';
    if (it.verdict === 'recurrence' && fromSources(it, handle)) return 'hit';
    if (it.verdict === 'recurrence' && fromLookAlike(it, handle)) return 'unconfirmed-offer';
    return 'wrong-offer';
  };
  /** Count one shown offer by its outcome; returns the outcome. */
  const countOffer = (o: PastfixOutcome): PastfixOutcome => {
    tally.shown_offers++;
    if (o === 'hit') tally.right_offers++;
    else if (o === 'unconfirmed-offer') tally.unconfirmed_offers++;
    else if (o === 'generic-offer') tally.generic_offers++;
    else if (o === 'wrong-offer') tally.wrong_offers++;
    else tally.unjudged_offers++;
    return o;
  };

  for (const it of items) {
    const i = idx.get(it.tool_use_id);
    if (i === undefined) continue;
    const here = steps[i];
    const cands = [here, nextHooked(i)].filter((s): s is ScoredStep => !!s?.shown && !told.has(s));
    const ev = (outcome: PastfixOutcome, at: ScoredStep | null): PastfixEvent => ({
      session, step: here.step, tool_use_id: it.tool_use_id, item: it.id, verdict: it.verdict, hookable: it.hookable,
      handle: at?.shown?.handle ?? null, hook: at?.shown?.hook ?? null, text: at?.shown?.text ?? null, reason: at ? null : here.reason, outcome,
    });
    if (it.verdict === 'recurrence' && it.hookable) {
      tally.hookable_recurrences++;
      const right = cands.find((s) => fromSources(it, s.shown!.handle));
      if (right) {
        told.add(right);
        tally.hits++;
        events.push(ev(countOffer('hit'), right));
        continue;
      }
      const shown = cands[0] ?? null;
      if (shown) {
        told.add(shown);
        countOffer(judge(it, shown.shown!.handle));
      }
      const late = steps.slice(i).some((s) => s.decided.some((h) => fromSources(it, h)));
      if (late) tally.late++;
      else tally.misses++;
      events.push(ev(late ? 'late' : 'miss', shown));
      continue;
    }
    // Not a hookable recurrence: only what the hook showed right there is scored.
    const shown = here.shown && !told.has(here) ? here : null;
    if (!shown) {
      events.push(ev(it.verdict === 'recurrence' ? 'unhookable' : 'silent', null));
      continue;
    }
    told.add(shown);
    events.push(ev(countOffer(judge(it, shown.shown!.handle)), shown));
  }
  for (const s of steps) {
    if (!s.shown) continue;
    if (s.rejection) tally.rejection_offers++;
    if (told.has(s)) continue;
    // An offer at the event after a judged call belongs to that call (it is told above when it
    // was the right one); any other shown offer is one the gold did not judge.
    const it = s.toolUseId ? byId.get(s.toolUseId) : undefined;
    // A second offer at an item already told is judged as that item's offers are.
    const outcome = countOffer(judge(it, s.shown.handle));
    events.push({
      session, step: s.step, tool_use_id: s.toolUseId, item: it?.id ?? null, verdict: it?.verdict ?? null, hookable: it?.hookable ?? null,
      handle: s.shown.handle, hook: s.shown.hook, text: s.shown.text, reason: null, outcome,
    });
  }
  return events;
}

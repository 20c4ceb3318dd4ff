/**
 * The judged-gold scorer of `eval pastfix --gold` (eval/pastfix-gold.ts): parsing with clear
 * errors, the check that a gold belongs to the transcripts, and the scoring rules of the gold
 * README — hit at the call or the next hook event from a source session, late, miss, wrong,
 * generic, unconfirmed and unjudged offers — with a property: every shown offer is scored
 * exactly once and the tallies add up.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkGold, emptyTally, GoldError, handleSession, parseGold, scoreSession, type GoldItem, type ScoredStep } from '../../eval/pastfix-gold.js';

const item = (over: Partial<GoldItem> = {}): GoldItem => ({
  id: 'p:c1', session: 'S', tool_use_id: 't3', step: 2, tool: 'Bash', hookable: true, verdict: 'recurrence',
  sources: [{ session: 'EARLY' }], look_alikes: ['ALIKE'], ...over,
});
const step = (n: number, over: Partial<ScoredStep> = {}): ScoredStep => ({ step: n, toolUseId: `t${n}`, hookEvent: true, rejection: false, shown: null, decided: [], reason: 'no-fix', ...over });
const shown = (session: string) => ({ handle: `sessions/p/${session}.jsonl#4`, hook: 'would-fire', confidence: 0.85, text: '' });

describe('eval pastfix --gold: parsing and checking', () => {
  it('reads the README format and says what is wrong with a bad file, naming the item', () => {
    const g = parseGold(JSON.stringify({ project: 'p', items: [{ id: 'p:c1', session: 'S', tool_use_id: 't3', step: 2, hookable: true, verdict: 'recurrence', sources: [{ session: 'E', tool_use_id: 'x', fix_step: 4 }] }] }), 'g.json');
    expect(g.items[0]).toMatchObject({ id: 'p:c1', verdict: 'recurrence', sources: [{ session: 'E' }], look_alikes: [] });
    expect(() => parseGold('{', 'g.json')).toThrow(/g\.json is not JSON/);
    expect(() => parseGold('{"items":[]}', 'g.json')).toThrow(/needs "project"/);
    expect(() => parseGold(JSON.stringify({ project: 'p', items: [{ id: 'p:c9', session: 'S', tool_use_id: 't', hookable: true, verdict: 'maybe' }] }), 'g.json')).toThrow(/item 0 \(p:c9\) has verdict "maybe"/);
    expect(() => parseGold(JSON.stringify({ project: 'p', items: [{ session: 'S', verdict: 'generic', hookable: false }] }), 'g.json')).toThrow(/needs "session" and "tool_use_id"/);
  });

  it('a gold of another project, or naming a call that does not exist, is an error naming the first one', () => {
    const g = { project: 'p', items: [item(), item({ id: 'p:c2', tool_use_id: 't99' })] };
    const calls = new Map([['S', new Set(['t1', 't2', 't3'])]]);
    expect(() => checkGold(g, 'q', calls)).toThrow(/the gold is for project "p", but the transcripts are project "q"/);
    expect(() => checkGold(g, 'p', calls)).toThrow(/gold item p:c2 names step 2 \(tool_use_id t99\) of session S, which that session does not have/);
    expect(() => checkGold({ project: 'p', items: [item({ session: 'NOPE' })] }, 'p', calls)).toThrow(GoldError);
    expect(() => checkGold({ project: 'p', items: [item()] }, 'p', calls)).not.toThrow();
  });

  it('handleSession reads the session of a transcript chunk handle', () => {
    expect(handleSession('sessions/-home-ken/0479cd6b-8d05.jsonl#12')).toBe('0479cd6b-8d05');
  });
});

describe('eval pastfix --gold: scoring', () => {
  it('hit: a shown offer from a source session at the call or at the next hook event', () => {
    const t = emptyTally();
    const ev = scoreSession('S', [step(1), step(2), step(3, { shown: shown('EARLY') })], [item()], t);
    expect(ev).toMatchObject([{ outcome: 'hit', item: 'p:c1' }]);
    expect(t).toMatchObject({ hookable_recurrences: 1, hits: 1, right_offers: 1, shown_offers: 1 });
    const next = emptyTally();
    scoreSession('S', [step(3), step(4, { hookEvent: false }), step(5, { shown: shown('EARLY') })], [item()], next);
    expect(next.hits).toBe(1); // the next step the hook ran at
  });

  it('late when only a daemon decision found the source; miss otherwise; an offer from a look-alike is unconfirmed, from elsewhere wrong', () => {
    const t = emptyTally();
    expect(scoreSession('S', [step(3), step(4, { hookEvent: false, decided: ['sessions/p/EARLY.jsonl#1'] })], [item()], t)[0].outcome).toBe('late');
    expect(scoreSession('S', [step(3, { shown: shown('ALIKE') })], [item()], t)[0].outcome).toBe('miss');
    expect(scoreSession('S', [step(3, { shown: shown('OTHER') })], [item()], t)[0].outcome).toBe('miss');
    expect(t).toMatchObject({ hookable_recurrences: 3, hits: 0, late: 1, misses: 2, unconfirmed_offers: 1, wrong_offers: 1, shown_offers: 2 });
  });

  it('offers at generic, different and unresolved items are wrong; at calls the gold does not name, unjudged; at user rejections, counted', () => {
    const t = emptyTally();
    const ev = scoreSession('S', [
      step(3, { shown: shown('EARLY') }),
      step(5, { toolUseId: 't5', shown: shown('EARLY'), rejection: true }),
      step(7, { shown: shown('EARLY') }),
      step(9, { shown: shown('EARLY') }),
    ], [item({ verdict: 'generic', hookable: true }), item({ id: 'p:c7', tool_use_id: 't7', verdict: 'different' }), item({ id: 'p:c9', tool_use_id: 't9', verdict: 'unresolved-recurrence' })], t);
    expect(ev.map((e) => e.outcome).sort()).toEqual(['generic-offer', 'unjudged-offer', 'wrong-offer', 'wrong-offer']);
    expect(t).toMatchObject({ generic_offers: 1, wrong_offers: 2, unjudged_offers: 1, rejection_offers: 1, shown_offers: 4, right_offers: 0 });
  });

  it('silence at a non-recurrence is the right answer (outcome silent); a recurrence the hook never sees is unhookable', () => {
    const t = emptyTally();
    const ev = scoreSession('S', [step(3), step(4)], [item({ verdict: 'different' }), item({ id: 'p:c4', tool_use_id: 't4', hookable: false })], t);
    expect(ev.map((e) => e.outcome)).toEqual(['silent', 'unhookable']);
    expect(t.hookable_recurrences).toBe(0);
  });

  it('property: every shown offer is scored once; right + wrong + generic + unconfirmed + unjudged = shown; hits + late + misses = hookable recurrences', () => {
    const verdict = fc.constantFrom('recurrence', 'unresolved-recurrence', 'different', 'generic') as fc.Arbitrary<GoldItem['verdict']>;
    fc.assert(
      fc.property(
        fc.array(fc.record({ shown: fc.option(fc.constantFrom('EARLY', 'ALIKE', 'OTHER'), { nil: null }), hook: fc.boolean(), judged: fc.option(fc.tuple(verdict, fc.boolean()), { nil: null }) }), { maxLength: 30 }),
        (xs) => {
          const steps = xs.map((x, i) => step(i + 1, { hookEvent: x.hook, shown: x.shown ? shown(x.shown) : null }));
          const items = xs.flatMap((x, i) => (x.judged ? [item({ id: `i${i}`, tool_use_id: `t${i + 1}`, verdict: x.judged[0], hookable: x.judged[1] })] : []));
          const t = emptyTally();
          scoreSession('S', steps, items, t);
          expect(t.shown_offers).toBe(steps.filter((s) => s.shown).length);
          expect(t.right_offers + t.wrong_offers + t.generic_offers + t.unconfirmed_offers + t.unjudged_offers).toBe(t.shown_offers);
          expect(t.hits + t.late + t.misses).toBe(t.hookable_recurrences);
          expect(t.hookable_recurrences).toBe(items.filter((i) => i.verdict === 'recurrence' && i.hookable).length);
        },
      ),
    );
  });
});

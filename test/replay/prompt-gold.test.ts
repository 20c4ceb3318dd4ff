/**
 * The prompt-gold scorer of `eval prompts --gold` (eval/prompt-gold.ts): parsing with clear
 * errors, the check that a gold belongs to the transcripts, and the scoring rules of the
 * prompt-gold README — a hit is an offer from a source session (not from a candidate judged
 * N), an offer at a prompt that needs nothing or from another session is wrong, an offer at a
 * prompt the gold does not name is unjudged, a silent prompt keeps the hook's reason — with a
 * property: every shown offer is scored exactly once and the tallies add up.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkPromptGold, emptyPromptTally, GoldError, parsePromptGold, rightAt, scorePrompts, type PromptGoldItem, type ScoredPrompt } from '../../eval/prompt-gold.js';

const item = (over: Partial<PromptGoldItem> = {}): PromptGoldItem => ({
  id: 'p:p1', session: 'S', uuid: 'u3', needs_past: true,
  sources: [{ session: 'EARLY', uuid: 'e1', type: 'fact' }],
  judged: [{ session: 'EARLY', uuid: 'e1', verdict: 'W' }, { session: 'EARLY', uuid: 'e2', verdict: 'N' }, { session: 'OTHER', uuid: 'o1', verdict: 'N' }],
  ...over,
});
const shown = (session: string, exchange: string | null = null): ScoredPrompt['shown'] => ({ handle: `sessions/p/${session}.jsonl#4`, exchange, type: 'analogous', confidence: 0.8, line: '[active-brain …]', hook: 'would-fire' });
const prompt = (uuid: string, over: Partial<ScoredPrompt> = {}): ScoredPrompt => ({ uuid, shown: null, reason: 'no-offer', daemon: 'no-trigger', ...over });

describe('eval prompts --gold: parsing and checking', () => {
  it('reads the README format and says what is wrong with a bad file, naming the item', () => {
    const g = parsePromptGold(JSON.stringify({ project: 'p', items: [{ id: 'p:p1', session: 'S', uuid: 'u3', needs_past: true, sources: [{ session: 'E', uuid: 'e1', type: 'fact' }], judged_candidates: [{ session: 'E', uuid: 'e1', verdict: 'W' }] }] }), 'g.json');
    expect(g.items[0]).toMatchObject({ id: 'p:p1', needs_past: true, sources: [{ session: 'E', uuid: 'e1', type: 'fact' }], judged: [{ verdict: 'W' }] });
    expect(() => parsePromptGold('{', 'g.json')).toThrow(/g\.json is not JSON/);
    expect(() => parsePromptGold('{"items":[]}', 'g.json')).toThrow(/needs "project"/);
    expect(() => parsePromptGold(JSON.stringify({ project: 'p', items: [{ id: 'p:p9', session: 'S', needs_past: false }] }), 'g.json')).toThrow(/item 0 \(p:p9\) needs "session" and "uuid"/);
    expect(() => parsePromptGold(JSON.stringify({ project: 'p', items: [{ session: 'S', uuid: 'u', needs_past: 'yes' }] }), 'g.json')).toThrow(/needs "needs_past"/);
    expect(() => parsePromptGold(JSON.stringify({ project: 'p', items: [{ session: 'S', uuid: 'u', needs_past: true, sources: [] }] }), 'g.json')).toThrow(/needs the past but names no source/);
    expect(() => parsePromptGold(JSON.stringify({ project: 'p', items: [{ session: 'S', uuid: 'u', needs_past: false, judged_candidates: [{ session: 'E', uuid: 'e', verdict: 'maybe' }] }] }), 'g.json')).toThrow(/verdict W or N/);
  });

  it('a gold of another project, or naming a prompt that does not exist, is an error naming the first one', () => {
    const g = { project: 'p', items: [item(), item({ id: 'p:p2', uuid: 'u99' })] };
    const prompts = new Map([['S', new Set(['u1', 'u2', 'u3'])]]);
    expect(() => checkPromptGold(g, 'q', prompts)).toThrow(/the gold is for project "p", but the transcripts are project "q"/);
    expect(() => checkPromptGold(g, 'p', prompts)).toThrow(/gold item p:p2 names prompt u99 of session S, which that session does not have/);
    expect(() => checkPromptGold({ project: 'p', items: [item({ session: 'NOPE' })] }, 'p', prompts)).toThrow(GoldError);
    expect(() => checkPromptGold({ project: 'p', items: [item()] }, 'p', prompts)).not.toThrow();
  });
});

describe('eval prompts --gold: scoring', () => {
  it('hit: an offer from a source session at that prompt — its source exchange, or one the reviewer did not judge N', () => {
    expect(rightAt(item(), shown('EARLY', 'e1')!.handle, 'e1')).toBe(true);
    expect(rightAt(item(), shown('EARLY')!.handle, null)).toBe(true); // exchange unknown: judged by its session
    expect(rightAt(item(), shown('EARLY')!.handle, 'e7')).toBe(true); // another chunk of the source session
    expect(rightAt(item(), shown('EARLY')!.handle, 'e2')).toBe(false); // a candidate judged N
    expect(rightAt(item(), shown('OTHER')!.handle, null)).toBe(false);
    expect(rightAt(item({ needs_past: false }), shown('EARLY')!.handle, 'e1')).toBe(false);
    const t = emptyPromptTally();
    const ev = scorePrompts('S', [prompt('u1'), prompt('u3', { shown: shown('EARLY', 'e1'), reason: null, daemon: null })], [item()], t);
    expect(ev).toMatchObject([{ outcome: 'hit', item: 'p:p1', exchange: 'e1', reason: null }]);
    expect(t).toMatchObject({ judged_prompts: 1, needs_past: 1, hits: 1, misses: 0, shown_offers: 1, right_offers: 1, wrong_offers: 0 });
  });

  it('miss keeps the hook reason and the daemon silence; an offer at a prompt needing nothing, or from a candidate judged N, is wrong; elsewhere unjudged', () => {
    const t = emptyPromptTally();
    expect(scorePrompts('S', [prompt('u3', { reason: 'no-cache', daemon: null })], [item()], t)).toMatchObject([{ outcome: 'miss', reason: 'no-cache', daemon: null }]);
    expect(scorePrompts('S', [prompt('u3')], [item()], t)).toMatchObject([{ outcome: 'miss', reason: 'no-offer', daemon: 'no-trigger' }]);
    expect(scorePrompts('S', [prompt('u3', { shown: shown('EARLY', 'e2') })], [item()], t)[0].outcome).toBe('wrong-offer');
    expect(scorePrompts('S', [prompt('u3', { shown: shown('EARLY', 'e1') })], [item({ needs_past: false })], t)[0].outcome).toBe('wrong-offer');
    expect(scorePrompts('S', [prompt('u3')], [item({ needs_past: false })], t)[0].outcome).toBe('silent');
    expect(scorePrompts('S', [prompt('u8', { shown: shown('EARLY', 'e1') })], [item()], t).map((e) => e.outcome)).toEqual(['unjudged-offer', 'miss']);
    expect(t).toMatchObject({ judged_prompts: 6, needs_past: 4, hits: 0, misses: 4, shown_offers: 3, right_offers: 0, wrong_offers: 2, unjudged_offers: 1 });
  });

  it('a gold prompt the hook never met is scored with reason no-hook-event (a miss when it needs the past)', () => {
    const t = emptyPromptTally();
    expect(scorePrompts('S', [], [item(), item({ id: 'p:p2', uuid: 'u4', needs_past: false })], t)).toMatchObject([
      { outcome: 'miss', reason: 'no-hook-event', item: 'p:p1' },
      { outcome: 'silent', reason: 'no-hook-event', item: 'p:p2' },
    ]);
    expect(t).toMatchObject({ judged_prompts: 2, needs_past: 1, misses: 1 });
  });

  it('property: every shown offer is scored once; hits + misses = needs_past; right + wrong + unjudged = shown', () => {
    const sessions = ['EARLY', 'OTHER', 'S2'];
    fc.assert(
      fc.property(
        fc.array(fc.record({ u: fc.integer({ min: 0, max: 9 }), from: fc.option(fc.constantFrom(...sessions), { nil: null }), ex: fc.option(fc.constantFrom('e1', 'e2', 'e3'), { nil: null }) }), { maxLength: 10 }),
        fc.array(fc.record({ u: fc.integer({ min: 0, max: 9 }), needs: fc.boolean() }), { maxLength: 6 }),
        (ps, its) => {
          const seen = new Set<number>();
          const prompts = ps.filter((p) => !seen.has(p.u) && seen.add(p.u)).map((p) => prompt(`u${p.u}`, p.from ? { shown: shown(p.from, p.ex), reason: null, daemon: null } : {}));
          const used = new Set<number>();
          const items = its.filter((i) => !used.has(i.u) && used.add(i.u)).map((i) => item({ id: `p:${i.u}`, uuid: `u${i.u}`, needs_past: i.needs }));
          const t = emptyPromptTally();
          const ev = scorePrompts('S', prompts, items, t);
          expect(t.shown_offers).toBe(prompts.filter((p) => p.shown).length);
          expect(t.right_offers + t.wrong_offers + t.unjudged_offers).toBe(t.shown_offers);
          expect(t.hits + t.misses).toBe(t.needs_past);
          expect(t.judged_prompts).toBe(items.length);
          expect(ev.filter((e) => e.item).length).toBe(items.length);
          expect(ev.filter((e) => e.handle).length).toBe(t.shown_offers);
        },
      ),
    );
  });
});

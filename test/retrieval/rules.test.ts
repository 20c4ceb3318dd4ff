/** The pure decision rules: sufficiency, region caps / cross-region / wander, offer types. */
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { sufficiency, similarityScale, relativeSimilarity } from '../../retrieval/sufficiency.js';
import { capByRegion, dominantRegion, hasCrossRegion, selectByRegion, wander, type RegionCandidate } from '../../retrieval/regions.js';
import { classifyOffer, contradictedTerm, sharedErrorString, type TypeContext } from '../../retrieval/offer-type.js';
import { offerConfidence, WILDCARD_MAX } from '../../retrieval/confidence.js';
import { extractStrings } from '../../retrieval/extract.js';
import { fuseQueries } from '../../retrieval/fuse.js';
import type { FusedCandidate } from '../../retrieval/fuse.js';
import type { ChunkRecord } from '../../store/types.js';

const fc_ = (id: number, fused: number, support: number, bestCos: number | null, bestName: number | null = null): FusedCandidate => ({ chunkId: id, fused, rank: id, support, bestCos, bestName, bestString: null, lists: [] });
const rc = (id: number, region: string, support = 2): RegionCandidate => ({ chunkId: id, region, fused: 1 / (60 + id), support, rank: id, wildcard: false });

describe('fusion over queries (search/fusion RRF)', () => {
  test('support counts distinct lists; best cosine and name confidence are kept per chunk', () => {
    const out = fuseQueries(
      [
        { id: 'keyword:exchange', arm: 'keyword', hits: [{ chunkId: 1, score: 5, rank: 1 }, { chunkId: 2, score: 4, rank: 2 }] },
        { id: 'vector:exchange', arm: 'vector', hits: [{ chunkId: 1, score: 0.7, rank: 1 }, { chunkId: 3, score: 0.6, rank: 2 }] },
        { id: 'vector:centroid', arm: 'vector', hits: [{ chunkId: 1, score: 0.5, rank: 1 }] },
        { id: 'name:s0', arm: 'name', hits: [{ chunkId: 2, score: 0.8, rank: 1 }] },
      ],
      60,
    );
    const one = out.find((c) => c.chunkId === 1)!;
    expect(out[0].chunkId).toBe(1);
    expect(one.support).toBe(3);
    expect(one.bestCos).toBeCloseTo(0.7);
    expect(out.find((c) => c.chunkId === 2)!.bestName).toBeCloseTo(0.8);
    expect(out.find((c) => c.chunkId === 3)!.bestName).toBeNull();
  });
});

describe('evidence sufficiency', () => {
  const scale = similarityScale(Array.from({ length: 50 }, (_, i) => 0.1 + (i % 10) * 0.01))!;

  test('a lone weak hit is insufficient; a clear, agreed, similar match is sufficient (control)', () => {
    const weak = sufficiency([fc_(1, 0.016, 1, 0.15), fc_(2, 0.0159, 1, 0.14)], scale);
    expect(weak.score).toBeLessThan(0.5);
    const clear = sufficiency([fc_(1, 0.05, 4, 0.6), fc_(2, 0.016, 1, 0.2)], scale);
    expect(clear.score).toBeGreaterThanOrEqual(0.5);
    expect(clear.support).toBe(1);
    expect(clear.similarity).toBe(1);
  });

  test('similarity is relative to the store scale: the same cosine counts on a low scale, not on a high one', () => {
    const low = similarityScale(Array.from({ length: 40 }, (_, i) => 0.05 + (i % 8) * 0.01))!;
    const high = similarityScale(Array.from({ length: 40 }, (_, i) => 0.55 + (i % 8) * 0.01))!;
    expect(relativeSimilarity(0.45, low)).toBe(1);
    expect(relativeSimilarity(0.45, high)).toBe(0);
    expect(relativeSimilarity(0.45, null)).toBe(0);
  });

  test('empty ranking → 0; property: always within [0, 1]', () => {
    expect(sufficiency([], scale).score).toBe(0);
    fc.assert(
      fc.property(
        fc.array(fc.record({ fused: fc.double({ min: 0, max: 1, noNaN: true }), support: fc.integer({ min: 1, max: 12 }), cos: fc.option(fc.double({ min: -1, max: 1, noNaN: true })), name: fc.option(fc.constantFrom(0.6, 0.8, 0.9)) }), { maxLength: 6 }),
        (xs) => {
          const ranked = xs.map((x, i) => fc_(i + 1, x.fused, x.support, x.cos, x.name)).sort((a, b) => b.fused - a.fused);
          const s = sufficiency(ranked, scale).score;
          expect(s).toBeGreaterThanOrEqual(0);
          expect(s).toBeLessThanOrEqual(1);
        },
      ),
    );
  });
});

describe('regions', () => {
  test('per-region cap keeps at most N per region and fills with other regions', () => {
    const ranked = [rc(1, 'a'), rc(2, 'a'), rc(3, 'a'), rc(4, 'b'), rc(5, 'a'), rc(6, 'c')];
    const set = capByRegion(ranked, 2, 5);
    expect(set.map((c) => c.chunkId)).toEqual([1, 2, 4, 6]);
    // Control: a larger cap lets the third `a` in.
    expect(capByRegion(ranked, 3, 5).map((c) => c.chunkId)).toEqual([1, 2, 3, 4, 6]);
  });

  test('dominant region = most summed support', () => {
    expect(dominantRegion([rc(1, 'b', 1), rc(2, 'a', 3), rc(3, 'a', 3)])).toBe('a');
    expect(dominantRegion([])).toBeNull();
  });

  test('one region only → silence no-cross-region; a second region present → offer path (control)', () => {
    const opts = { perRegionCap: 2, candidates: 5, wanderProbability: 0 };
    const one = selectByRegion([rc(1, 'a'), rc(2, 'a'), rc(3, 'a')], opts, () => 0.5);
    expect(one).toMatchObject({ ok: false, silence: 'no-cross-region', dominant: 'a' });
    // The rule is waived when the session has a single region in scope.
    expect(selectByRegion([rc(1, 'a'), rc(2, 'a'), rc(3, 'a')], { ...opts, eligibleRegions: 1 }, () => 0.5).ok).toBe(true);
    expect(selectByRegion([rc(1, 'a'), rc(2, 'a'), rc(3, 'a')], { ...opts, eligibleRegions: 2 }, () => 0.5).ok).toBe(false);
    const two = selectByRegion([rc(1, 'a'), rc(2, 'a'), rc(3, 'a'), rc(9, 'b')], opts, () => 0.5);
    expect(two.ok).toBe(true);
    if (two.ok) expect(two.set.map((c) => c.region)).toEqual(['a', 'a', 'b']);
  });

  test('a wildcard never satisfies the cross-region rule', () => {
    const set = [{ ...rc(1, 'a'), wildcard: false }, { ...rc(7, 'b'), wildcard: true }];
    expect(hasCrossRegion(set, 'a')).toBe(false);
    expect(hasCrossRegion([set[0], { ...set[1], wildcard: false }], 'a')).toBe(true);
    // With a set capped to one region, wander (p = 1) still ends in silence.
    const ranked = [rc(1, 'a'), rc(2, 'a'), rc(3, 'a'), rc(4, 'a'), rc(5, 'a'), rc(6, 'b')];
    const out = selectByRegion(ranked, { perRegionCap: 5, candidates: 5, wanderProbability: 1 }, () => 0);
    expect(out).toMatchObject({ ok: false, silence: 'no-cross-region' });
  });

  test('wander adds one wildcard from lower ranks of another region, with the given probability', () => {
    const ranked = [rc(1, 'a'), rc(2, 'a'), rc(3, 'b'), rc(4, 'a'), rc(5, 'c'), rc(6, 'd')];
    const opts = { perRegionCap: 2, candidates: 3, wanderProbability: 0.3 };
    const hit = selectByRegion(ranked, opts, () => 0.1);
    expect(hit.ok && hit.wildcard).toMatchObject({ wildcard: true });
    if (hit.ok) {
      expect(hit.set.length).toBe(4);
      expect(hit.wildcard!.region).not.toBe('a');
      expect([5, 6]).toContain(hit.wildcard!.chunkId);
    }
    const miss = selectByRegion(ranked, opts, () => 0.9);
    expect(miss.ok && miss.wildcard).toBe(null);
    // Nothing eligible → no wildcard, rng untouched.
    let calls = 0;
    expect(wander([rc(1, 'a')], [rc(1, 'a')], 'a', 1, () => (calls++, 0))).toBeNull();
    expect(calls).toBe(0);
  });

  test('property: wander rate follows the probability over seeded draws', () => {
    const ranked = [rc(1, 'a'), rc(2, 'b'), rc(3, 'a'), rc(4, 'c'), rc(5, 'd')];
    let seed = 7;
    const rng = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    let n = 0;
    for (let i = 0; i < 2000; i++) {
      const out = selectByRegion(ranked, { perRegionCap: 1, candidates: 2, wanderProbability: 0.1 }, rng);
      if (out.ok && out.wildcard) n++;
    }
    expect(n / 2000).toBeGreaterThan(0.07);
    expect(n / 2000).toBeLessThan(0.13);
  });
});

function chunk(p: Partial<ChunkRecord>): ChunkRecord {
  return { id: 1, handle: 'r/x.md#0', region: 'r', regionScope: 'global', kind: 'notes', path: '/x.md', title: 'X', heading: 'X', text: '', ordinal: 0, createdAt: 0, hasError: false, resolved: false, aliases: [], ...p };
}

describe('offer types', () => {
  const failing = extractStrings('Error: read ECONNRESET while acquiring a connection');
  const ctx = (p: Partial<TypeContext> = {}): TypeContext => ({ strings: failing, turnText: 'pool failing', sessionRegions: new Set(['app']), trigger: 'error', ...p });
  const past = chunk({ kind: 'transcripts', hasError: true, resolved: true, region: 'past', text: 'got ECONNRESET again; fixed by keepAlive' });

  test('past fix needs a failure, a resolved transcript chunk and a shared error string (each control)', () => {
    expect(classifyOffer(past, false, ctx())).toMatchObject({ type: 'past-fix', rule: 'shared-window-error', sharedError: 'ECONNRESET', detail: 'error-code' });
    // An old error that was never resolved is no Past fix, and no Analogous either: silence.
    expect(classifyOffer({ ...past, resolved: false }, false, ctx())).toBeNull();
    expect(classifyOffer({ ...past, kind: 'notes' }, false, ctx())).toMatchObject({ type: 'analogous', rule: 'other-region-outcome', detail: 'note' });
    expect(classifyOffer({ ...past, text: 'a timeout' }, false, ctx())).toMatchObject({ type: 'analogous', detail: 'resolved-error' });
    expect(classifyOffer(past, false, ctx({ strings: [] }))?.type).toBe('analogous');
  });

  test('past fix applies to an error of the current window, not to one quoted in a prompt or a reply (control: the window error)', () => {
    // The turn's text quotes ECONNRESET, but no tool of the window failed with it.
    expect(classifyOffer(past, false, ctx({ windowErrors: [] }))?.type).toBe('analogous');
    expect(classifyOffer(past, false, ctx({ windowErrors: extractStrings('Error: read ECONNRESET') }))?.type).toBe('past-fix');
  });

  test('tangent is never an old error; analogous needs an outcome (each with its control)', () => {
    const err = chunk({ kind: 'transcripts', region: 'other', hasError: true, resolved: false, text: 'Prompt: deploy\nErrors: exit code 1' });
    expect(classifyOffer(err, true, ctx({ strings: [] }))).toBeNull();
    expect(classifyOffer({ ...err, chunkKind: 'episode' }, false, ctx({ strings: [], trigger: 'drift' }))).toBeNull();
    const talk = chunk({ kind: 'transcripts', region: 'other', text: 'Prompt: look at the pool\nAssistant: I will read the pool settings next.' });
    expect(classifyOffer(talk, false, ctx({ strings: [], trigger: 'stall' }))).toBeNull();
    expect(classifyOffer({ ...talk, text: `${talk.text} The pool works now.` }, false, ctx({ strings: [], trigger: 'stall' }))).toMatchObject({ type: 'analogous', detail: 'verdict' });
    expect(classifyOffer(talk, true, ctx({ strings: [] }))).toMatchObject({ type: 'tangent', rule: 'wildcard' });
    // An error episode that is no Past fix here is no Analogous either (control: as a Past fix it is).
    const episode = chunk({ kind: 'transcripts', region: 'other', chunkKind: 'episode', hasError: true, resolved: true, text: 'Error episode (resolved): Bash: npm test\nError: read ECONNRESET\nFix: raise the pool timeout' });
    expect(classifyOffer(episode, false, ctx({ windowErrors: [], trigger: 'stall' }))).toBeNull();
    expect(classifyOffer(episode, false, ctx())?.type).toBe('past-fix');
  });

  test('contradicts only what the turn asks or does: not a word of the assistant prose, not a 3-letter word (controls)', () => {
    const note = chunk({ region: 'app', text: 'Do not use sqlite3 for the queue. Never add new tables by hand.' });
    expect(classifyOffer(note, false, ctx({ strings: [], turnText: 'the assistant mentioned sqlite3', actionText: 'tidy the queue' }))).toBeNull();
    expect(classifyOffer(note, false, ctx({ strings: [], turnText: 'x', actionText: 'switch the queue to sqlite3' }))).toMatchObject({ type: 'contradicts', contradictTerm: 'sqlite3' });
    expect(contradictedTerm('Never add new tables by hand.', 'add a new endpoint')).toBeNull();
    expect(contradictedTerm('Never add `new` tables by hand.', 'add a new endpoint')).toBe('new');
  });

  test('error messages match by their stable prefix', () => {
    const s = extractStrings("TypeError: Cannot read properties of undefined (reading 'id')");
    expect(sharedErrorString(s, "earlier: TypeError: Cannot read properties of undefined (reading 'name')")).toMatch(/^TypeError/);
  });

  test('contradicts: the note advises against what the turn does; agreement and absence do not count', () => {
    expect(contradictedTerm('Never use `rm -rf node_modules/.cache` while the watcher runs.', 'Bash: rm -rf node_modules/.cache')).toBe('rm -rf node_modules/.cache');
    expect(contradictedTerm("Don't use moment.js for dates; prefer Temporal.", 'import moment.js and format the date')).toBe('moment.js');
    expect(contradictedTerm('Avoid global state in handlers.', 'add caching to handlers')).toBeNull();
    expect(contradictedTerm('Never use eval in templates.', 'we should never use eval here')).toBeNull();
    expect(contradictedTerm('Never use eval in templates.', 'evaluate the template')).toBeNull();
    expect(classifyOffer(chunk({ region: 'app', text: 'Do not use sqlite3 for the queue.' }), false, ctx({ strings: [], turnText: 'switch the queue to sqlite3' }))?.type).toBe('contradicts');
  });

  test('tangent for wildcards and drift; analogous outside the session project; own project → no type', () => {
    const note = chunk({ region: 'app', text: 'the pool' });
    expect(classifyOffer(note, true, ctx({ strings: [] }))?.type).toBe('tangent');
    expect(classifyOffer(note, false, ctx({ strings: [], trigger: 'drift' }))?.type).toBe('tangent');
    expect(classifyOffer(note, false, ctx({ strings: [], trigger: 'stall' }))).toBeNull();
    expect(classifyOffer({ ...note, region: 'other' }, false, ctx({ strings: [], trigger: 'stall' }))?.type).toBe('analogous');
  });

  test('confidence: 0–1, type evidence raises it, wildcard capped', () => {
    const ev = { score: 0.7, support: 1, margin: 0.5, similarity: 0.6, exact: 0 };
    expect(offerConfidence('past-fix', ev, false)).toBeGreaterThan(offerConfidence('analogous', ev, false));
    expect(offerConfidence('analogous', ev, false)).toBeGreaterThan(offerConfidence('tangent', ev, false));
    expect(offerConfidence('past-fix', { ...ev, score: 1 }, true)).toBe(WILDCARD_MAX);
    expect(offerConfidence('past-fix', { ...ev, score: 1 }, false)).toBe(1);
  });
});

describe('exact string evidence', () => {
  test('a keyword hit counts as exact only when the chunk contains the string (control: it does)', async () => {
    const { verifiedStringConfidence } = await import('../../retrieval/builder.js');
    const { planQueries } = await import('../../retrieval/queries.js');
    const strings = extractStrings("TypeError: Cannot read properties of undefined (reading 'id')\n at load (/srv/app/src/pool.ts:3:1)");
    const plan = planQueries({ exchange: { user: 'x', assistant: '', toolErrors: [] }, exchangeVector: new Float32Array(0), centroid: new Float32Array(0), dim: 4 }, strings);
    const msgList = plan.keyword.find((q) => q.kind === 'error-message')!;
    const pathList = plan.keyword.find((q) => q.kind === 'path')!;
    const f = { ...fc_(1, 0.1, 2, null), lists: [`keyword:${msgList.id}`, `keyword:${pathList.id}`] };
    expect(verifiedStringConfidence(f, chunk({ text: 'reading undefined values is fine' }), plan)).toBeNull();
    expect(verifiedStringConfidence(f, chunk({ text: 'the pool of workers' }), plan)).toBeNull();
    expect(verifiedStringConfidence(f, chunk({ text: "TypeError: Cannot read properties of undefined (reading 'name')" }), plan)).toBe(0.8);
    expect(verifiedStringConfidence(f, chunk({ text: 'see pool.ts for the retry' }), plan)).toBe(0.6);
  });
});

describe('own session and offer ids', () => {
  test('chunks from the observed session itself are recognised; other sessions are not', async () => {
    const { fromOwnSession, offerId } = await import('../../retrieval/builder.js');
    expect(fromOwnSession('/h/.claude/projects/-w/abc-123.jsonl', 'abc-123')).toBe(true);
    expect(fromOwnSession('/h/.claude/projects/-w/abc-123/subagents/agent-1.jsonl', 'abc-123')).toBe(true);
    expect(fromOwnSession('/h/.claude/projects/-w/abc-1234.jsonl', 'abc-123')).toBe(false);
    expect(fromOwnSession('/notes/abc-123.md', 'abc-123')).toBe(false);
    expect(offerId('s', 'u', 7)).toBe(offerId('s', 'u', 7));
    expect(offerId('s', 'u', 7)).not.toBe(offerId('s', 'u', 8));
  });
});

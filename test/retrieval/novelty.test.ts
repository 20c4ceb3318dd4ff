/**
 * Novelty and subject rules (retrieval/novelty.ts), each with its control, plus properties:
 * a text the session holds whole is never news; a bounded memory stays bounded; the builder
 * over a real store drops an offer the session already holds and offers it to a session that
 * does not (control).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { HELD_SHARE, MIN_SHINGLES, SessionShingles, chunkAuthor, heldShare, namesSubject, novelty, shingles } from '../../retrieval/novelty.js';
import { createOfferBuilder } from '../../retrieval/builder.js';
import { buildStore, config, exchange, request, type TestStore } from './helpers.js';
import { FIXTURE, FILLER, PG_ERROR_TURN } from './fixture.js';

const PLAN = 'Plan: move the invoices export to a background job, stream rows to S3 in pages of five hundred, and email the link when the export finishes; then delete the synchronous endpoint.';

describe('novelty', () => {
  test('a chunk the session already holds is no news; a different one is (control)', () => {
    const seen = new SessionShingles();
    seen.add(`Earlier the assistant wrote: ${PLAN} Done.`);
    expect(novelty(PLAN, seen, 'what next?')).toMatchObject({ novel: false, why: 'already-held' });
    const other = 'Postgres pool drops idle connections after the server timeout; raise idleTimeoutMillis and enable keepAlive on the pool to stop the resets.';
    expect(novelty(other, seen, 'what next?')).toMatchObject({ novel: true });
  });

  test('a chunk that only restates the current request is no news; one that adds its outcome is (control)', () => {
    const prompt = 'Implement the PRD in docs/prd-api-gateway.json story US-004 and run the typecheck when done please';
    expect(novelty(`Prompt: ${prompt}`, new SessionShingles(), prompt)).toMatchObject({ novel: false, why: 'restates' });
    const outcome = `Prompt: ${prompt}\nAssistant: The gateway now rejects requests without a key; the rate limiter keeps a sliding window per key in redis and the typecheck passes after fixing two imports in the middleware module.`;
    expect(novelty(outcome, new SessionShingles(), prompt).novel).toBe(true);
  });

  test('too short to judge → passes; property: a text held whole is never novel', () => {
    expect(heldShare(shingles('just a few words here'), new Set())).toBeNull();
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{2,8}$/), { minLength: MIN_SHINGLES + 4, maxLength: 80 }), (words) => {
        const text = words.join(' ');
        const seen = new SessionShingles();
        seen.add(`before ${text} after`);
        const v = novelty(text, seen, '');
        expect(v.novel).toBe(false);
        expect(v.held!).toBeGreaterThanOrEqual(HELD_SHARE);
      }),
      { numRuns: 100 },
    );
  });

  test('the memory is bounded: oldest shingles go first', () => {
    const seen = new SessionShingles(50);
    seen.add(PLAN);
    for (let i = 0; i < 20; i++) seen.add(`fresh words number ${i} follow one another here without end ${i} times`);
    expect(seen.size).toBeLessThanOrEqual(50);
    expect(heldShare(shingles(PLAN), seen)).toBe(0);
  });

  test('an offer about a named subject must name it (controls: it does; no name asked)', () => {
    const turn = { title: 'Session 2', heading: 'D2:3', text: 'Melanie (8 May 2023): I ran a charity race for mental health last Saturday.' };
    expect(namesSubject(turn, ['Caroline'])).toBe(false);
    expect(namesSubject(turn, ['melanie'])).toBe(true);
    expect(namesSubject(turn, [])).toBe(true);
    expect(namesSubject({ title: '', heading: '', text: 'rewrite it in C++ first' }, ['C++'])).toBe(true);
    expect(namesSubject({ title: '', heading: '', text: 'Carolinesque' }, ['Caroline'])).toBe(false);
    // A chunk that speaks for an author is about its author, not about whom it addresses.
    const addressed = { title: '', heading: '', text: 'Melanie (1:14 pm on 25 May, 2023): Thanks, Caroline! I realized self-care matters.' };
    expect(namesSubject(addressed, ['Caroline'])).toBe(false);
    expect(namesSubject(addressed, ['Melanie'])).toBe(true);
    expect(chunkAuthor(addressed.text)).toBe('Melanie');
    // The indexer's own labels are no authors: a transcript chunk is judged by what it names.
    expect(chunkAuthor('Prompt: ask Caroline about the deploy')).toBeNull();
    expect(namesSubject({ title: '', heading: '', text: 'Prompt: ask Caroline about the deploy' }, ['Caroline'])).toBe(true);
  });
});

describe('novelty in the offer builder (real store, offline model)', () => {
  let s: TestStore;
  beforeAll(async () => {
    s = await buildStore([...FIXTURE, ...FILLER]);
  });
  afterAll(() => s?.cleanup());

  test('the past fix the session already read is not offered again; control: a fresh session gets it', async () => {
    const b = createOfferBuilder({ store: s.reader, embedder: s.embedder, config: config() });
    const req = await request(s.embedder, exchange(PG_ERROR_TURN), { trigger: 'error' });
    const fresh = await b.build(req);
    expect(fresh.offer).toMatchObject({ type: 'past-fix', region: 'past-sessions' });
    const chunk = s.reader.getChunks([fresh.offer!.chunkId])[0];
    const seen = new SessionShingles();
    seen.add(`The assistant read the old session: ${chunk.text}`);
    const again = await b.build({ ...req, seen });
    expect(again.figures.alreadyHeldDropped).toBeGreaterThan(0);
    expect(again.offer?.chunkId).not.toBe(fresh.offer!.chunkId);
  });
});

/**
 * Request coverage (retrieval/coverage.ts), each rule with its control, plus properties, and
 * the rule in the offer builder over a real store with the offline model: a similarity offer
 * that shares the topic but not the request's specific words is dropped (silence), the chunk
 * that holds them is offered (control).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { MAX_TERMS, MIN_COVERAGE, coverage, coversRequest, requestTerms, speakerTermsOf, termOf, termsOf, weighRequest } from '../../retrieval/coverage.js';
import { createOfferBuilder } from '../../retrieval/builder.js';
import { buildStore, config, exchange, request, type DocSpec, type TestStore } from './helpers.js';
import { FILLER } from './fixture.js';

describe('coverage', () => {
  test('inflections fold to one term; short words stay whole', () => {
    expect(termOf('motivates')).toBe(termOf('motivated'));
    expect(termOf('languages')).toBe(termOf('language'));
    expect(termOf('realizing')).toBe(termOf('realize'));
    expect(termOf('Trails')).toBe(termOf('trail'));
    expect(termOf('cats')).toBe('cats');
    expect(termOf('hiking')).not.toBe(termOf('hike') + 'x');
  });

  test('request terms leave out stop-words and question frames, keep names', () => {
    const t = requestTerms('How many times did Jon take a trip to Barcelona?');
    expect(t).toContain(termOf('Barcelona'));
    expect(t).toContain(termOf('trip'));
    expect(t).toContain(termOf('Jon'));
    for (const w of ['how', 'many', 'times', 'did', 'to', 'a']) expect(t).not.toContain(w);
  });

  test('a candidate holding the request\'s rare words covers it; one holding only the shared topic does not (control)', () => {
    const reference = [
      termsOf('We went on a trip to the coast last spring.'),
      termsOf('The trip to the mountains was long.'),
      termsOf('Jon took a trip to Rome to clear his mind.'),
      termsOf('Jon opened a dance studio downtown.'),
      termsOf('Jon visited Barcelona and loved the architecture on his trip.'),
    ];
    const w = weighRequest(requestTerms('Why did Jon take a trip to Barcelona?'), reference);
    const rome = coverage(w, reference[2])!;
    const barcelona = coverage(w, reference[4])!;
    expect(rome).toBeLessThan(MIN_COVERAGE);
    expect(barcelona).toBeGreaterThanOrEqual(MIN_COVERAGE);
    expect(coversRequest(rome)).toBe(false);
    expect(coversRequest(barcelona)).toBe(true);
  });

  test('an unseen word counts only when long, and never more than the rarest known word (a small store is not swamped)', () => {
    const reference = [termsOf('postgres pool ECONNRESET: raise idle timeout, keepAlive.'), termsOf('Stretch after cycling.')];
    const w = weighRequest(requestTerms('The API keeps failing with ECONNRESET, what is going on with the postgres connection pool?'), reference);
    const names = w.terms.map((t) => t.term);
    expect(names).toContain(termOf('connection')); // unseen, long: counted
    expect(names).not.toContain(termOf('keeps')); // unseen, short: a common word the notes never use
    const known = Math.max(...w.terms.filter((t) => t.term !== termOf('connection')).map((t) => t.idf));
    expect(w.terms.find((t) => t.term === termOf('connection'))!.idf).toBeLessThanOrEqual(known);
    expect(coverage(w, reference[0])!).toBeGreaterThanOrEqual(MIN_COVERAGE);
    expect(coverage(w, reference[1])!).toBeLessThan(MIN_COVERAGE);
  });

  test('what a speaker says about "your …" is the addressee\'s: not the speaker\'s terms (control: "my …")', () => {
    const yours = speakerTermsOf('Joanna: Wow, your new hair color looks amazing!');
    expect(yours.has(termOf('hair'))).toBe(false);
    expect(yours.has(termOf('color'))).toBe(false);
    expect(yours.has(termOf('amazing'))).toBe(true);
    const mine = speakerTermsOf('Joanna: I dyed my hair a bright purple color!');
    expect(mine.has(termOf('hair'))).toBe(true);
    expect(mine.has(termOf('color'))).toBe(true);
  });

  test('nothing to judge → null and passes; at most MAX_TERMS terms; property: coverage in [0, 1]', () => {
    expect(coverage(weighRequest(requestTerms('what is it?'), [termsOf('anything')]), termsOf('anything'))).toBeNull();
    expect(coversRequest(null)).toBe(true);
    const long = Array.from({ length: 30 }, (_, i) => `wordnumber${String.fromCharCode(97 + (i % 26))}${i}`).join(' ');
    expect(weighRequest(requestTerms(long), [termsOf(long)]).terms.length).toBe(MAX_TERMS);
    const word = fc.stringMatching(/^[a-z]{3,10}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 12 }), fc.array(fc.array(word, { maxLength: 15 }), { minLength: 1, maxLength: 6 }), (req, docs) => {
        const refs = docs.map((d) => termsOf(d.join(' ')));
        const w = weighRequest(requestTerms(req.join(' ')), refs);
        for (const r of refs) {
          const c = coverage(w, r);
          if (c !== null) {
            expect(c).toBeGreaterThanOrEqual(0);
            expect(c).toBeLessThanOrEqual(1 + 1e-9);
          }
        }
      }),
      { numRuns: 200, seed: 7 },
    );
  });
});

const GREENHOUSE: DocSpec = {
  region: 'greenhouse',
  file: 'greenhouse.md',
  title: 'Greenhouse',
  chunks: [{ heading: 'heating', text: 'The greenhouse heater thermostat cost forty pounds; set it to eight degrees so the seedlings survive frost.' }],
};
const TURN = { user: 'what did the greenhouse heater thermostat cost, and where is it set for the seedlings?' };

describe('coverage in the offer builder (real store, offline model)', () => {
  let bare: TestStore;
  let held: TestStore;
  beforeAll(async () => {
    bare = await buildStore(FILLER);
    held = await buildStore([...FILLER, GREENHOUSE]);
  });
  afterAll(() => {
    bare?.cleanup();
    held?.cleanup();
  });

  test('only topic-sharing candidates → silence (uncoveredDropped); control: the chunk holding the request\'s words is offered', async () => {
    // The evidence gate is opened so that only the coverage rule stands between the candidates and an offer.
    const open = config({ minSufficiency: 0, wanderProbability: 0 });
    const none = await createOfferBuilder({ store: bare.reader, embedder: bare.embedder, config: open }).build(await request(bare.embedder, exchange(TURN), { trigger: 'drift' }));
    expect(none.offer).toBeNull();
    expect(none.silence).toBe('no-offer-type');
    expect(none.figures.uncoveredDropped).toBeGreaterThan(0);
    const some = await createOfferBuilder({ store: held.reader, embedder: held.embedder, config: open }).build(await request(held.embedder, exchange(TURN), { trigger: 'drift' }));
    expect(some.offer).toMatchObject({ type: 'tangent', region: 'greenhouse' });
    expect(some.typeEvidence?.coverage).toBeGreaterThanOrEqual(MIN_COVERAGE);
  });
});

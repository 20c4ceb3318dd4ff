/**
 * Attribution (retrieval/attribution.ts), each rule with its control, a property, and the rule
 * in the offer builder over a real store with the offline model: a turn by the named subject
 * that shares the topic of the request, while another speaker's turn holds the detail asked
 * about ("whiteboard"), is not offered (silence, misattributedDropped); controls: the same turn
 * is offered when no other speaker holds the detail, and when the request asks what it does hold.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { attributedElsewhere, bestRivalShare, contentShare, contentWeights } from '../../retrieval/attribution.js';
import { requestTerms, termOf, termsOf, weighRequest } from '../../retrieval/coverage.js';
import { createOfferBuilder } from '../../retrieval/builder.js';
import { buildStore, config, exchange, request, type DocSpec, type TestStore } from './helpers.js';
import { FILLER } from './fixture.js';

describe('attribution', () => {
  const ask = 'What does Tim write on the whiteboard to help him stay motivated?';
  const tim = termsOf('Tim: I love writing, it helps me stay motivated.');
  const john = termsOf('John: On that whiteboard I write quotes that help me stay motivated.');
  const weights = weighRequest(requestTerms(ask), [tim, john]);

  test('the content of a request is its weighed terms without the named subjects (multi-word names too)', () => {
    const c = contentWeights(weights, ['Tim']);
    expect(c.terms.map((t) => t.term)).not.toContain(termOf('Tim'));
    expect(c.terms.map((t) => t.term)).toContain(termOf('whiteboard'));
    expect(c.total).toBeCloseTo(c.terms.reduce((s, t) => s + t.idf, 0), 9);
    const two = contentWeights(weighRequest(requestTerms('When did Gina mention Shia Labeouf?'), [termsOf('Gina: Shia Labeouf!')]), ['Shia Labeouf']);
    expect(two.terms.map((t) => t.term)).toEqual([termOf('Gina')]);
  });

  test('a rival holding more of the content → attributed elsewhere; control: the subject\'s own turn holding more is not', () => {
    const content = contentWeights(weights, ['Tim']);
    const own = contentShare(content, tim);
    const rival = bestRivalShare(content, [john]);
    expect(rival).toBeGreaterThan(own!);
    expect(attributedElsewhere(own, rival)).toBe(true);
    // Control: Tim's turn names the whiteboard, John's does not → Tim's share leads, kept.
    const timHolds = termsOf('Tim: I write on my whiteboard every day, it helps me stay motivated.');
    const johnLacks = termsOf('John: I write quotes that help me stay motivated.');
    expect(attributedElsewhere(contentShare(content, timHolds), bestRivalShare(content, [johnLacks]))).toBe(false);
  });

  test('a tie drops (the detail is not tied to the subject); a rival holding nothing, or nothing to judge, never does', () => {
    expect(attributedElsewhere(0.6, 0.6)).toBe(true);
    expect(attributedElsewhere(0.6, 0.59)).toBe(false);
    expect(attributedElsewhere(0, 0)).toBe(false);
    expect(attributedElsewhere(null, 1)).toBe(false);
    expect(contentShare(contentWeights(weighRequest(requestTerms('Who is Tim?'), [tim]), ['Tim']), tim)).toBeNull();
    expect(bestRivalShare(contentWeights(weights, ['Tim']), [])).toBe(0);
  });

  test('property: shares in [0, 1]; a candidate holding every content term is never attributed elsewhere unless a rival also does', () => {
    const word = fc.stringMatching(/^[a-z]{3,10}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 10 }), fc.array(fc.array(word, { maxLength: 12 }), { minLength: 1, maxLength: 5 }), (req, docs) => {
        const refs = docs.map((d) => termsOf(d.join(' ')));
        const content = contentWeights(weighRequest(requestTerms(req.join(' ')), refs), []);
        const rival = bestRivalShare(content, refs);
        expect(rival).toBeGreaterThanOrEqual(0);
        expect(rival).toBeLessThanOrEqual(1 + 1e-9);
        const all = new Set(content.terms.map((t) => t.term));
        const own = contentShare(content, all);
        if (own !== null && rival < 1 - 1e-9) expect(attributedElsewhere(own, rival)).toBe(false);
      }),
      { numRuns: 200, seed: 11 },
    );
  });
});

const turn = (speaker: string, text: string) => ({ heading: speaker, text: `${speaker} (1:56 pm on 8 May, 2023): ${text}` });
const TIM = turn('Tim', 'When things get tough I remember why I love writing and reading. That is what helps me stay motivated and push myself.');
const JOHN = turn('John', 'On that whiteboard I write down motivational quotes and strategies that help me stay motivated before practice.');
const chat = (chunks: DocSpec['chunks']): DocSpec => ({ region: 'chat', file: 'chat.md', title: 'Chat', chunks });
const WHITEBOARD = { user: 'What does Tim write on the whiteboard to help him stay motivated?' };

describe('attribution in the offer builder (real store, offline model)', () => {
  let both: TestStore;
  let timOnly: TestStore;
  beforeAll(async () => {
    both = await buildStore([...FILLER, chat([TIM, JOHN])]);
    timOnly = await buildStore([...FILLER, chat([TIM, turn('John', 'Practice went long today, the coach kept us running drills until dark.')])]);
  });
  afterAll(() => {
    both?.cleanup();
    timOnly?.cleanup();
  });
  // The evidence gate is opened so that only the rules on the typed candidates decide.
  const open = config({ minSufficiency: 0, wanderProbability: 0 });
  const build = async (s: TestStore, user: string) => createOfferBuilder({ store: s.reader, embedder: s.embedder, config: open }).build(await request(s.embedder, exchange({ user }), { trigger: 'drift' }));

  test('another speaker holds the detail asked about → silence (misattributedDropped)', async () => {
    const d = await build(both, WHITEBOARD.user);
    expect(d.offer).toBeNull();
    expect(d.silence).toBe('no-offer-type');
    expect(d.figures.misattributedDropped).toBeGreaterThan(0);
  });

  test('control: nobody else holds it → the subject\'s turn is offered (the coverage rule alone passes it)', async () => {
    const d = await build(timOnly, WHITEBOARD.user);
    expect(d.offer).toMatchObject({ region: 'chat' });
    expect(timOnly.reader.getChunks([d.offer!.chunkId])[0].text).toMatch(/^Tim /);
    expect(d.figures.misattributedDropped).toBe(0);
  });

  test('control (answerable-like): the request asks what the subject\'s turn does hold → offered despite the other speaker', async () => {
    const d = await build(both, 'What helps Tim stay motivated when things get tough?');
    expect(d.offer).toMatchObject({ region: 'chat' });
    expect(both.reader.getChunks([d.offer!.chunkId])[0].text).toMatch(/^Tim /);
    expect(d.figures.misattributedDropped).toBe(0);
  });
});

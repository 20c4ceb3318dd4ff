/**
 * The LoCoMo and BEIR loaders (eval/locomo.ts, eval/beir.ts) on the fixtures in
 * test/fixtures/{locomo,beir} and on malformed input: bad lines are skipped and counted,
 * malformed evidence ids are repaired or skipped, adversarial questions are flagged.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseLocomo, parseEvidence, scoredQuestions, turnText, observationsAsBeir } from '../../eval/locomo.js';
import { parseBeir, parseQrels, parseCorpus, parseQueries } from '../../eval/beir.js';
import { repoRoot } from '../helpers/model.js';

const fixtures = join(repoRoot, 'test', 'fixtures');
const locomoJson = () => JSON.parse(readFileSync(join(fixtures, 'locomo', 'tiny.json'), 'utf8')) as unknown;
const beirFile = (f: string) => readFileSync(join(fixtures, 'beir', f), 'utf8');

describe('LoCoMo loader', () => {
  it('turns carry speaker, session date and image caption; ids are dia ids', () => {
    const [a, b] = parseLocomo(locomoJson());
    expect(a.id).toBe('tiny-1');
    expect(a.turns).toHaveLength(12);
    expect(b.turns).toHaveLength(3);
    expect(a.turns[1]).toMatchObject({ diaId: 'D1:2', session: 1, speaker: 'Ana' });
    expect(a.turns[1].text).toBe('Ana (1:00 pm on 3 May, 2023): I adopted a puppy from the shelter yesterday, a beagle called Milo.');
    expect(a.turns.find((t) => t.diaId === 'D2:3')!.text).toContain('[shares a photo: a photo of a waterfall in a green forest]');
  });

  it('scores questions with evidence, not adversarial ones; repairs "D1:3; D2:2"', () => {
    const [a, b] = parseLocomo(locomoJson());
    const scored = scoredQuestions(a);
    expect(scored.map((q) => q.question)).toEqual([
      'When did Ana adopt the puppy?',
      'What instrument is Ben learning?',
      'What did Ana photograph on her hike?',
      'Which sports do Ana and Ben do?',
    ]);
    expect(scored[3].evidence).toEqual(['D1:3', 'D2:2']);
    const lost = a.questions.find((q) => q.question.startsWith('Where does'))!;
    expect(lost.evidence).toEqual([]);
    expect(lost.missingEvidence).toEqual(['D9:99']);
    expect(scoredQuestions(b)).toHaveLength(1);
  });

  it('normalizes malformed evidence ids', () => {
    expect(parseEvidence('D8:6; D9:17')).toEqual(['D8:6', 'D9:17']);
    expect(parseEvidence('D:11:26')).toEqual(['D11:26']);
    expect(parseEvidence(42)).toEqual([]);
  });

  it('rejects a file that is not a list of conversations, with a reason', () => {
    expect(() => parseLocomo({})).toThrow(/list of conversations/);
    expect(() => parseLocomo([{ sample_id: 'x' }])).toThrow(/conversation #1/);
  });

  it('turnText without a date still names the speaker', () => {
    expect(turnText('Ana', '', 'hi')).toBe('Ana: hi');
  });

  it('observations become a BEIR set whose qrels point at facts of evidence turns', () => {
    const b = observationsAsBeir(locomoJson());
    const data = parseBeir(b.corpus, b.queries, b.qrels);
    expect(data.docs).toHaveLength(6);
    // Questions whose evidence turns have facts: puppy (D1:2), violin (D2:1), photo (D2:3), sports (D1:3, D2:2).
    expect(data.queries.map((q) => q.text)).toEqual([
      'When did Ana adopt the puppy?',
      'What instrument is Ben learning?',
      'What did Ana photograph on her hike?',
      'Which sports do Ana and Ben do?',
    ]);
    const sports = data.queries[3];
    const facts = [...sports.qrels.keys()].map((id) => data.docs.find((d) => d.id === id)!.text);
    expect(facts.sort()).toEqual(['Ana ran her first five kilometre race.', 'Ben started running in the mornings.']);
  });
});

describe('BEIR loader', () => {
  it('reads the fixture: bad lines counted, unjudged queries left out, grades kept', () => {
    const data = parseBeir(beirFile('corpus.jsonl'), beirFile('queries.jsonl'), beirFile('qrels.tsv'));
    expect(data.docs).toHaveLength(10);
    expect(data.skipped).toEqual({ corpus: 2, queries: 0, qrels: 1 });
    expect(data.queries.map((q) => q.id)).toEqual(['q1', 'q2', 'q3', 'q5']);
    expect(data.unjudged).toBe(1);
    expect(data.queries[0].qrels).toEqual(new Map([['d1', 2], ['d10', 1], ['d6', 1]]));
  });

  it('numeric ids are read as strings; the header row is not data', () => {
    expect(parseCorpus('{"_id": 7, "text": "x"}').docs[0].id).toBe('7');
    expect(parseQueries('{"_id": 3, "text": "q"}').queries.get('3')).toBe('q');
    const r = parseQrels('query-id\tcorpus-id\tscore\n3\t7\t1\n');
    expect(r.qrels.get('3')).toEqual(new Map([['7', 1]]));
    expect(r.skipped).toBe(0);
    // No header: the first row is data.
    expect(parseQrels('3\t7\t1\n').qrels.get('3')?.get('7')).toBe(1);
  });

  it('empty or unusable files are errors that say what was expected', () => {
    expect(() => parseBeir('', '{"_id":"q","text":"x"}', 'q\td\t1')).toThrow(/corpus has no usable documents/);
    expect(() => parseBeir('{"_id":"d","text":"x"}', 'nope', 'q\td\t1')).toThrow(/queries file/);
    expect(() => parseBeir('{"_id":"d","text":"x"}', '{"_id":"q","text":"x"}', 'header only\n')).toThrow(/qrels/);
  });

  it('never throws on arbitrary lines (skips them instead)', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 20 }), (ls) => {
        const text = ls.join('\n');
        const c = parseCorpus(text);
        const q = parseQueries(text);
        const r = parseQrels(text);
        expect(c.docs.length + c.skipped).toBeLessThanOrEqual(ls.length);
        expect(q.queries.size + q.skipped).toBeLessThanOrEqual(ls.length);
        expect(r.skipped).toBeLessThanOrEqual(ls.length);
      }),
    );
  });
});

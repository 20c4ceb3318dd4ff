/**
 * LoCoMo live replay (eval/locomo-replay.ts) with the offline model and real temp stores:
 * exchange building (A opens, B replies), dates, the report's keys, determinism, the store
 * holding EARLIER sessions only (every offered chunk is a turn of an earlier session), the
 * gold-link flag recomputed from the QA items, adversarial questions, and the CLI's --json.
 * Fixtures: test/fixtures/locomo/tiny.json and a small generated conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigSchema, type Config } from '../../config/schema.js';
import type { Embedder } from '../../embed/types.js';
import { parseLocomo, type LocomoTurn } from '../../eval/locomo.js';
import { replayLocomo } from '../../eval/locomo-replay.js';
import { evidenceLinks, parseLocomoDate, sessionExchanges, speakersA, spokenText } from '../../eval/locomo-exchanges.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

const TINY = join(repoRoot, 'test', 'fixtures', 'locomo', 'tiny.json');
let embedder: Embedder;
let tmp: string;
beforeAll(async () => {
  embedder = await offlineEmbedder();
  tmp = mkdtempSync(join(tmpdir(), 'ab-locomo-replay-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Three sessions of two friends; session 3 comes back to session 1's camping trip. */
function generated(): unknown[] {
  const s1 = [
    ['Mia', 'We finally booked the camping trip to the lake district for August.'],
    ['Leo', 'Great, bring the blue tent, the old one leaks when it rains.'],
    ['Mia', 'I bought a new camping stove and a water filter for the trip.'],
    ['Leo', 'The water filter matters, the lake water is not safe to drink.'],
    ['Mia', 'My brother Sam will drive us, his van fits the kayaks too.'],
    ['Leo', 'Kayaks on the lake at sunrise will be amazing.'],
    ['Mia', 'I also started learning to bake sourdough bread at home.'],
    ['Leo', 'Sourdough needs a lively starter, feed it every day.'],
    ['Mia', 'We will hike to the waterfall above the lake on the second day.'],
    ['Leo', 'The waterfall trail is steep, take good boots.'],
    ['Mia', 'I need a warmer sleeping bag, the nights get cold there.'],
    ['Leo', 'Nights by the lake are cold even in August.'],
    ['Mia', 'My camera battery died last time, I will pack two spares.'],
    ['Leo', 'Spare batteries for the camera, good idea.'],
  ];
  const s2 = [
    ['Mia', 'My pottery class started on Monday, we made clay bowls.'],
    ['Leo', 'Did the glaze come out well after the kiln firing?'],
    ['Mia', 'The glaze cracked, the teacher said the kiln was too hot.'],
    ['Leo', 'Try a lower kiln temperature next week.'],
    ['Mia', 'I will, and I want to make a vase for my mother.'],
    ['Leo', 'Your mother will love a handmade vase.'],
    ['Mia', 'The studio sells clay by the kilo, I bought five kilos.'],
    ['Leo', 'Keep the clay wrapped so it does not dry out.'],
    ['Mia', 'Next month the class learns the pottery wheel.'],
    ['Leo', 'The wheel takes patience, centering the clay is hard.'],
    ['Mia', 'I also joined a running club on Thursdays.'],
    ['Leo', 'Running with a club keeps you motivated.'],
  ];
  const s3 = [
    ['Leo', 'How are the trip plans going?'],
    ['Mia', 'The tent leaks, so we need to fix the blue tent before the camping trip to the lake.'],
    ['Leo', 'Seal the seams of the tent with silicone.'],
    ['Mia', 'Sam says the van broke down, so the kayaks may not fit.'],
    ['Leo', 'Rent a trailer for the kayaks then.'],
    ['Mia', 'My vase from pottery class finally survived the kiln.'],
    ['Leo', 'Lower kiln temperature worked then.'],
    ['Mia', 'Yes, and I am baking sourdough again this weekend.'],
    ['Leo', 'Feed the starter the night before.'],
    ['Mia', 'The water filter from the camping trip works great at home too.'],
    ['Leo', 'Good, the lake water needed it.'],
    ['Mia', 'My mother put the vase on her kitchen table.'],
    ['Leo', 'A handmade vase is a lovely gift.'],
    ['Mia', 'We might paddle the kayaks at sunrise on the last day.'],
    ['Leo', 'Sunrise on the lake will be calm.'],
    ['Mia', 'I started reading a novel about sailing around the world.'],
    ['Leo', 'Sailing stories are great for a rainy weekend.'],
    ['Mia', 'The sourdough starter smells sour again, is that fine?'],
    ['Leo', 'A sour smell means the starter is hungry.'],
  ];
  const session = (n: number, turns: string[][]) => turns.map(([speaker, text], i) => ({ speaker, dia_id: `D${n}:${i + 1}`, text }));
  return [
    {
      sample_id: 'gen-1',
      conversation: {
        speaker_a: 'Mia',
        speaker_b: 'Leo',
        session_1_date_time: '10:00 am on 1 June, 2023',
        session_1: session(1, s1),
        session_2_date_time: '6:30 pm on 12 June, 2023',
        session_2: session(2, s2),
        session_3_date_time: '9:15 am on 20 July, 2023',
        session_3: session(3, s3),
      },
      qa: [
        { question: 'Which tent leaks?', answer: 'the blue tent', evidence: ['D1:2', 'D3:2'], category: 1 },
        { question: 'Who drives the kayaks?', answer: 'Sam', evidence: ['D1:5', 'D3:4'], category: 1 },
        { question: 'What did Mia make in pottery?', answer: 'a vase', evidence: ['D2:5; D3:6'], category: 1 },
        { question: 'What does Mia bake?', answer: 'sourdough', evidence: ['D1:7', 'D1:8', 'D3:8'], category: 4 },
        { question: 'What colour is Leo\'s kayak?', adversarial_answer: 'red', evidence: ['D1:6'], category: 5 },
        { question: 'When did Mia sell her pottery?', adversarial_answer: 'June', evidence: ['D2:1'], category: 5 },
      ],
    },
  ];
}

/** A config under which the triggers fire on almost every exchange (to exercise offers). */
function eager(): Config {
  return ConfigSchema.parse({
    session: { warmupExchanges: 1, cooldownTurns: 0, cooldownSeconds: 0 },
    modes: { default: { driftZ: 0, driftMaxQuantile: 1, driftLexicalWeight: 0, driftQuestionBonus: 0, driftAnswerPenalty: 0 } },
    retrieval: { minSufficiency: 0 },
  });
}

const turn = (diaId: string, speaker: string, text = `${speaker} says ${diaId}`): LocomoTurn => ({ diaId, session: 1, speaker, date: '', text: `${speaker}: ${text}` });

describe('LoCoMo live replay', () => {
  it('exchanges: A opens, the following B turns reply; a leading B turn is a prompt-less exchange', () => {
    const ts = [turn('D1:1', 'B'), turn('D1:2', 'A'), turn('D1:3', 'A'), turn('D1:4', 'B'), turn('D1:5', 'B'), turn('D1:6', 'A')];
    const exs = sessionExchanges('c', 1, ts, 'A', 1000, '/locomo/c');
    expect(exs.map((e) => e.turnIds)).toEqual([['D1:1'], ['D1:2', 'D1:3', 'D1:4', 'D1:5'], ['D1:6']]);
    expect(exs.map((e) => e.exchange.injected)).toEqual([true, false, false]);
    expect(exs[1].exchange.user).toBe('A says D1:2\nA says D1:3');
    expect(exs[1].exchange.assistant).toBe('B says D1:4\nB says D1:5');
    expect(exs[2].exchange.assistantVisible).toBe(false);
    expect(spokenText({ diaId: 'D1:1', session: 1, speaker: 'Ana', date: '1 May', text: 'Ana (1 May): hello' })).toBe('hello');
  });

  it('property: every turn lands in exactly one exchange, in order, with increasing offsets and times', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('A', 'B'), { minLength: 0, maxLength: 30 }), (speakers) => {
        const ts = speakers.map((sp, i) => turn(`D1:${i + 1}`, sp));
        const exs = sessionExchanges('c', 1, ts, 'A', 0, '/x');
        expect(exs.flatMap((e) => e.turnIds)).toEqual(ts.map((t) => t.diaId));
        exs.forEach((e, i) => {
          expect(e.exchange.index).toBe(i);
          if (i > 0) {
            expect(e.exchange.startOffset).toBe(exs[i - 1].exchange.endOffset);
            expect(e.exchange.timestamp).toBeGreaterThan(exs[i - 1].exchange.timestamp);
          }
          // Only the first exchange of a session can lack a prompt.
          if (i > 0) expect(e.exchange.injected).toBe(false);
        });
      }),
    );
  });

  it('dates and evidence links', () => {
    expect(parseLocomoDate('1:56 pm on 8 May, 2023')).toBe(Date.UTC(2023, 4, 8, 13, 56));
    expect(parseLocomoDate('12:05 am on 1 January, 2024')).toBe(Date.UTC(2024, 0, 1, 0, 5));
    expect(parseLocomoDate('sometime')).toBeNull();
    const [conv] = parseLocomo(generated());
    const links = evidenceLinks(conv);
    expect([...(links.get('D3:6') ?? [])]).toEqual(['D2:5']);
    expect(links.has('D1:6')).toBe(false);
  });

  it('tiny fixture, default config: the report keys, 8 exchanges, silence on the adversarial question, deterministic', async () => {
    const json = JSON.parse(readFileSync(TINY, 'utf8'));
    const convs = speakersA(json, parseLocomo(json));
    const config = ConfigSchema.parse({});
    const a = await replayLocomo(convs, { config, embedder, seed: 1, parent: tmp });
    for (const k of ['conversations', 'exchanges', 'would_fire', 'fire_rate', 'linked_share', 'adversarial']) expect(a).toHaveProperty(k);
    expect(a).toMatchObject({ conversations: 2, exchanges: 8, would_fire: 0, fire_rate: 0, adversarial: { questions: 1, offers: 0 } });
    const b = await replayLocomo(convs, { config, embedder, seed: 1, parent: tmp });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it('eager triggers: offers come only from EARLIER sessions, and the gold-link flag matches the QA items', async () => {
    const json = generated();
    const convs = speakersA(json, parseLocomo(json));
    const r = await replayLocomo(convs, { config: eager(), embedder, seed: 1, parent: tmp, window: 3 });
    const [conv] = parseLocomo(json);
    const turnsOf = (n: number) => conv.turns.filter((t) => t.session === n);
    expect(r.exchanges).toBe([1, 2, 3].reduce((sum, n) => sum + sessionExchanges(conv.id, n, turnsOf(n), 'Mia', 0, '/x').length, 0));
    expect(r.would_fire).toBeGreaterThan(0);
    expect(r.by_silence['empty-store']).toBeGreaterThan(0); // session 1: nothing earlier
    const sessionOf = (dia: string) => Number(/^D(\d+):/.exec(dia)![1]);
    const links = evidenceLinks(conv);
    for (const o of r.offers) {
      expect(o.dia).not.toBeNull();
      expect(sessionOf(o.dia!)).toBeLessThan(o.session);
      // Recompute the link: the window = the last 3 turns of the session up to this exchange.
      const exs = sessionExchanges(conv.id, o.session, turnsOf(o.session), 'Mia', 0, '/x');
      const upTo = exs.slice(0, o.turn + 1).flatMap((e) => e.turnIds).slice(-3);
      expect(o.linked).toBe(upTo.some((w) => links.get(w)?.has(o.dia!)));
    }
    expect(r.linked).toBe(r.offers.filter((o) => o.linked).length);
    // Both outcomes occur here, so the check above is exercised either way.
    expect(r.offers.some((o) => o.linked) && r.offers.some((o) => !o.linked)).toBe(true);
    expect(r.linked_share).toBeCloseTo(r.linked / r.would_fire, 4);
    expect(r.adversarial.questions).toBe(2);
    expect(r.adversarial.offers).toBeLessThanOrEqual(r.adversarial.built);
    // The control: the answerable questions, fed the same way, get offers, and some are the
    // question's own evidence turn (well above a random store chunk).
    expect(r.answerable.questions).toBe(4);
    expect(r.answerable.offers).toBeGreaterThan(0);
    expect(r.answerable.offers).toBeLessThanOrEqual(r.answerable.built);
    expect(r.answerable.evidence_hits).toBeGreaterThan(0);
    expect(r.answerable.evidence_hit_share).toBeCloseTo(r.answerable.evidence_hits / r.answerable.offers, 4);
    expect(r.answerable.evidence_hit_share).toBeGreaterThan(r.answerable.evidence_hit_chance);
    // Each offer on a question is listed with what the hook did at the next prompt: shown ones
    // passed its gates (the confidence gate among them), the rest carry the hook's silence.
    const qo = r.question_offers;
    expect(qo.filter((o) => o.kind === 'adversarial').length).toBe(r.adversarial.offers);
    expect(qo.filter((o) => o.kind === 'answerable').length).toBe(r.answerable.offers);
    const shown = (k: string) => qo.filter((o) => o.kind === k && (o.hook === 'would-fire' || o.hook === 'printed'));
    expect(shown('adversarial').length).toBe(r.adversarial.shown);
    expect(shown('answerable').length).toBe(r.answerable.shown);
    expect(r.adversarial.shown).toBeLessThanOrEqual(r.adversarial.confident);
    expect(r.answerable.shown).toBeLessThanOrEqual(r.answerable.confident);
    for (const o of qo) expect(o.hook).not.toBeNull();
    expect(qo.filter((o) => o.evidence_hit).length).toBe(r.answerable.evidence_hits);
    expect(shown('answerable').filter((o) => o.evidence_hit).length).toBe(r.answerable.shown_evidence_hits);
    // No offer ever reaches into the session being replayed (the store grows after it).
    expect(r.offers.some((o) => o.session === 1)).toBe(false);
    const again = await replayLocomo(convs, { config: eager(), embedder, seed: 1, parent: tmp, window: 3 });
    expect(JSON.stringify(again)).toBe(JSON.stringify(r));
  });

  it('CLI: eval locomo-replay --json prints one object; a bad file is a usage error', () => {
    const env = { ...process.env, ACTIVE_BRAIN_HOME: join(tmp, 'home'), ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() };
    const bin = join(repoRoot, 'bin', 'active-brain.js');
    const r = spawnSync(process.execPath, [bin, 'eval', 'locomo-replay', '--locomo', TINY, '--json', '--conversations', '1'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout.trim());
    expect(j).toMatchObject({ conversations: 1, exchanges: 6, adversarial: { questions: 1 } });
    for (const k of ['would_fire', 'fire_rate', 'linked_share']) expect(typeof j[k]).toBe('number');
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, '{"not": "a list"}');
    const e = spawnSync(process.execPath, [bin, 'eval', 'locomo-replay', '--locomo', bad], { env, encoding: 'utf8', timeout: 60_000 });
    expect(e.status).toBe(2);
    expect(e.stderr).toContain('not a LoCoMo file');
    const none = spawnSync(process.execPath, [bin, 'eval', 'locomo-replay'], { env, encoding: 'utf8', timeout: 60_000 });
    expect(none.status).toBe(2);
  });
});

/**
 * Where the drift trigger fires on dialogues of clear topic blocks (in process, offline
 * model). First the block comparison alone (cues off, bar 2: the alignment of the similarity
 * measures): at each topic shift after warm-up, on that utterance's exchange or the one
 * before it, and nowhere inside a block. Then the shipped defaults on dialogues whose blocks
 * are opened by a question: every shift fires; inside a block only the block's own
 * same-topic question may, rarely (never a statement); and the control that without the
 * question cue a shift is missed.
 *
 * Exchange i is utterance i (prompt) + utterance i+1 (reply), compared with the prompts of the
 * exchanges before it; when the reply already opens a new block (here every block's
 * vocabulary is disjoint), exchange i is half new and may fire first — then the cooldown
 * silences exchange i+1. On TIAGE train such early firings are about as common as late ones
 * (docs/TRIGGERS.md, "Alignment"), so this is not a bias.
 */
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../config/schema.js';
import { driftFirings } from '../../eval/drift.js';
import { parseTiage } from '../../eval/tiage.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { dialogue, questionOpened } from './dialogues.js';

const config = ConfigSchema.parse({});
/** The block comparison alone: no dialogue cues, the pre-cue bar. */
const SIMILARITY_ONLY = { ...config.modes.default, driftZ: 2, driftLexicalWeight: 1, driftQuestionBonus: 0, driftAnswerPenalty: 0 };
const ORDERS = { a: [0, 1, 2], b: [3, 0, 1], c: [2, 3, 0], d: [1, 2, 3] };

function checkPositions(id: string, shiftsOf: boolean[], fired: boolean[]): void {
  const shifts = shiftsOf.flatMap((s, i) => (s ? [i] : []));
  for (const s of shifts) expect(fired[s] || fired[s - 1], `dialogue ${id}, shift at ${s}`).toBe(true);
  fired.forEach((f, i) => {
    if (f) expect(shifts.some((s) => i === s || i === s - 1), `dialogue ${id}: firing at ${i} inside a block`).toBe(true);
  });
}

describe('drift firing positions', () => {
  it('the block comparison alone fires at (or one exchange before) every shift after warm-up, never inside a block', async () => {
    const embedder = await offlineEmbedder();
    const ds = parseTiage(Object.fromEntries(Object.entries(ORDERS).map(([k, o]) => [k, dialogue(o)])));
    for (const d of ds) checkPositions(d.id, d.shifts, await driftFirings(d, embedder, SIMILARITY_ONLY, config.session));
  });

  it('shipped defaults: question-opened shifts fire; inside a block only a rare same-topic question in new words may', async () => {
    const embedder = await offlineEmbedder();
    const ds = parseTiage(Object.fromEntries(Object.entries(ORDERS).map(([k, o]) => [k, questionOpened(o)])));
    let inside = 0;
    for (const d of ds) {
      const fired = await driftFirings(d, embedder, config.modes.default, config.session);
      const shifts = d.shifts.flatMap((s, i) => (s ? [i] : []));
      for (const s of shifts) expect(fired[s] || fired[s - 1], `dialogue ${d.id}, shift at ${s}`).toBe(true);
      fired.forEach((f, i) => {
        if (!f || shifts.some((s) => i === s || i === s - 1)) return;
        inside++;
        // an in-block firing can only be the block's own question (the cue), never a statement
        expect(d.utterances[i], `dialogue ${d.id}: statement firing at ${i} inside a block`).toMatch(/\?$/);
      });
    }
    // 8 in-block questions are in warm positions (2 per dialogue); the cue may lift one whose words are new
    // (e.g. "treadmill" among "marathon" prompts) over the bar — the cost measured on TIAGE
    // (docs/TRIGGERS.md: opened-question firings are ~60% precise). Most must stay silent.
    expect(inside).toBeLessThanOrEqual(2);
  });

  it('control: without the question cue the shipped bar misses a question-opened shift', async () => {
    const embedder = await offlineEmbedder();
    const ds = parseTiage(Object.fromEntries(Object.entries(ORDERS).map(([k, o]) => [k, questionOpened(o)])));
    const noCue = { ...config.modes.default, driftQuestionBonus: 0 };
    let missed = 0;
    for (const d of ds) {
      const fired = await driftFirings(d, embedder, noCue, config.session);
      missed += d.shifts.filter((s, i) => s && i >= config.session.warmupExchanges && !fired[i] && !fired[i - 1]).length;
    }
    expect(missed).toBeGreaterThan(0);
  });
});

/**
 * Where the drift trigger fires on dialogues of clear topic blocks (in process, offline
 * model): at each topic shift after warm-up, on that utterance's exchange or on the one
 * before it, and nowhere inside a topic block. Exchange i is utterance i (prompt) + utterance
 * i+1 (reply), compared with the prompts of the exchanges before it; when the reply already
 * opens a new block (here every block's vocabulary is disjoint), exchange i is half new and may
 * fire first — then the cooldown silences exchange i+1. On TIAGE train such early firings are
 * about as common as late ones (docs/TRIGGERS.md, "Alignment"), so this is not a bias.
 */
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../config/schema.js';
import { driftFirings } from '../../eval/drift.js';
import { parseTiage } from '../../eval/tiage.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { dialogue } from './dialogues.js';

const config = ConfigSchema.parse({});

describe('drift firing positions', () => {
  it('fires at (or one exchange before) every topic shift after warm-up, never inside a block', async () => {
    const embedder = await offlineEmbedder();
    const ds = parseTiage({ a: dialogue([0, 1, 2]), b: dialogue([3, 0, 1]), c: dialogue([2, 3, 0]), d: dialogue([1, 2, 3]) });
    for (const d of ds) {
      const fired = await driftFirings(d, embedder, config.modes.default, config.session);
      const shifts = d.shifts.flatMap((s, i) => (s ? [i] : []));
      for (const s of shifts) expect(fired[s] || fired[s - 1], `dialogue ${d.id}, shift at ${s}`).toBe(true);
      fired.forEach((f, i) => {
        if (f) expect(shifts.some((s) => i === s || i === s - 1), `dialogue ${d.id}: firing at ${i} inside a block`).toBe(true);
      });
    }
  });
});

/**
 * Small synthetic TIAGE-format dialogues for the drift tests: topic blocks of five
 * utterances with clearly different vocabularies (each with one same-topic question inside);
 * label "1" where a new block starts.
 */
export const BLOCKS = [
  ['i cook pasta with garlic and fresh basil', 'my favourite sauce is tomato with olive oil', 'do you bake bread or cook pasta at home ?', 'garlic bread with basil is my favourite dinner', 'olive oil and tomato make any pasta better'],
  ['i run a marathon every spring', 'my running shoes wore out after the last marathon', 'do you train for races on a treadmill ?', 'spring marathons are cold at the start line', 'i ran my best race time last year'],
  ['my dog loves the beach and the waves', 'we walk the dog along the sand every morning', 'does your puppy swim in the sea ?', 'the dog chases seagulls on the beach', 'sand gets everywhere after a beach walk'],
  ['i play jazz piano in a small band', 'our band rehearses piano and drums on fridays', 'do you listen to jazz records ?', 'the piano solo was the best part of the gig', 'jazz clubs downtown have live bands'],
];

/** A dialogue of the given blocks in order, as TIAGE `[utterance, label]` pairs. */
export function dialogue(order: number[]): [string, string][] {
  const out: [string, string][] = [];
  order.forEach((b, bi) => BLOCKS[b].forEach((u, i) => out.push([u, out.length === 0 ? '-1' : i === 0 && bi > 0 ? '1' : '0'])));
  return out;
}

/** Openers that start each block with a question, as topics are usually opened in chat. */
const QUESTION_OPENERS = [
  'do you cook ? i make pasta with garlic and fresh basil',
  'do you run ? i run a marathon every spring',
  'do you have a dog ? mine loves the beach and the waves',
  'do you play music ? i play jazz piano in a small band',
];

/** Like dialogue(), but each block's first utterance asks about the new topic. */
export function questionOpened(order: number[]): [string, string][] {
  const out = dialogue(order);
  let at = 0;
  for (const b of order) {
    out[at] = [QUESTION_OPENERS[b], out[at][1]];
    at += BLOCKS[b].length;
  }
  return out;
}

/**
 * Small synthetic TIAGE-format dialogues for the drift tests: topic blocks of five
 * utterances with clearly different vocabularies; label "1" where a new block starts.
 */
export const BLOCKS = [
  ['i cook pasta with garlic and fresh basil', 'my favourite sauce is tomato with olive oil', 'do you bake bread or cook pasta at home', 'garlic bread with basil is my favourite dinner', 'olive oil and tomato make any pasta better'],
  ['i run a marathon every spring', 'my running shoes wore out after the last marathon', 'do you train for races on a treadmill', 'spring marathons are cold at the start line', 'i ran my best race time last year'],
  ['my dog loves the beach and the waves', 'we walk the dog along the sand every morning', 'does your puppy swim in the sea', 'the dog chases seagulls on the beach', 'sand gets everywhere after a beach walk'],
  ['i play jazz piano in a small band', 'our band rehearses piano and drums on fridays', 'do you listen to jazz records', 'the piano solo was the best part of the gig', 'jazz clubs downtown have live bands'],
];

/** A dialogue of the given blocks in order, as TIAGE `[utterance, label]` pairs. */
export function dialogue(order: number[]): [string, string][] {
  const out: [string, string][] = [];
  order.forEach((b, bi) => BLOCKS[b].forEach((u, i) => out.push([u, out.length === 0 ? '-1' : i === 0 && bi > 0 ? '1' : '0'])));
  return out;
}

/**
 * TIAGE topic-shift annotations (../shared/eval/tiage/anno_*.json): a JSON object, dialogue
 * id → list of `[utterance, label]` with label "-1" (first turn), "1" (the topic shifts at
 * this turn) or "0". Parsed into plain dialogues for eval/drift.ts. Pure.
 */

export interface TiageDialogue {
  id: string;
  utterances: string[];
  /** shifts[i]: a new topic starts at utterance i (shifts[0] is always false). */
  shifts: boolean[];
}

/** Parse a TIAGE file's JSON value; throws with the offending dialogue named. */
export function parseTiage(raw: unknown): TiageDialogue[] {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('expected a JSON object: dialogue id → [[utterance, label], …]');
  const out: TiageDialogue[] = [];
  for (const [id, turns] of Object.entries(raw as Record<string, unknown>)) {
    if (!Array.isArray(turns)) throw new Error(`dialogue ${id}: expected a list of [utterance, label]`);
    const utterances: string[] = [];
    const shifts: boolean[] = [];
    turns.forEach((t, i) => {
      if (!Array.isArray(t) || typeof t[0] !== 'string' || !['-1', '0', '1', -1, 0, 1].includes(t[1] as string | number))
        throw new Error(`dialogue ${id}, turn ${i}: expected [utterance, "-1"|"0"|"1"]`);
      utterances.push(t[0]);
      shifts.push(i > 0 && String(t[1]) === '1');
    });
    if (utterances.length > 0) out.push({ id, utterances, shifts });
  }
  return out;
}

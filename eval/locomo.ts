/**
 * LoCoMo loader (pure parsing): a locomo JSON file (a list of conversations, see
 * ../shared/eval/README.md) → per conversation its turns as chunk texts and its questions
 * with evidence turn ids. Used by cli/commands/eval/retrieval-cmd.ts (and the retrieval benchmark).
 *
 * Turn text = `<speaker> (<session date>): <text>` plus `[shares a photo: <caption>]` when the
 * turn carries an image caption — the date so "when" questions can match, the caption
 * because the turn's words alone often omit what the photo shows.
 * Evidence ids: a few are malformed (`D8:6; D9:17`, `D:11:26`); ids are split on `;`/`,`/space
 * and normalized (`D:11:26` → `D11:26`); ids that still point at no turn are skipped.
 * Category 5 (adversarial: the answer is not in the conversation) is kept but flagged, so the
 * evaluation can exclude it from recall.
 */

import { isObj } from '../shared/json-object.js';

export interface LocomoTurn {
  /** `D<session>:<n>` — becomes the chunk handle. */
  diaId: string;
  session: number;
  speaker: string;
  date: string;
  /** Chunk text as indexed. */
  text: string;
}

export interface LocomoQuestion {
  question: string;
  category: number;
  /** Evidence turn ids that exist in this conversation (deduplicated). */
  evidence: string[];
  /** Evidence ids given in the file that point at no turn. */
  missingEvidence: string[];
}

export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

/** The adversarial category: no answer in the conversation, so not scored for recall. */
export const ADVERSARIAL_CATEGORY = 5;

type Json = Record<string, unknown>;

/** Normalize one raw evidence string into zero or more dia ids. */
export function parseEvidence(raw: unknown): string[] {
  if (typeof raw !== 'string') return [];
  return raw
    .split(/[;,\s]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => s.replace(/^D:(\d+):(\d+)$/, 'D$1:$2'));
}

/** Build the indexed text of one turn. */
export function turnText(speaker: string, date: string, text: string, caption?: string): string {
  const head = date ? `${speaker} (${date})` : speaker;
  const photo = caption ? ` [shares a photo: ${caption}]` : '';
  return `${head}: ${text}${photo}`;
}

/** Parse one conversation object; throws with a clear message when its shape is wrong. */
export function parseConversation(raw: unknown, index: number): LocomoConversation {
  if (!isObj(raw) || !isObj(raw.conversation)) throw new Error(`conversation #${index + 1} has no "conversation" object`);
  const conv = raw.conversation;
  const id = typeof raw.sample_id === 'string' ? raw.sample_id : `conv-${index + 1}`;
  const turns: LocomoTurn[] = [];
  const sessionKeys = Object.keys(conv)
    .map((k) => /^session_(\d+)$/.exec(k))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  for (const n of sessionKeys) {
    const list = conv[`session_${n}`];
    if (!Array.isArray(list)) continue;
    const dateRaw = conv[`session_${n}_date_time`];
    const date = typeof dateRaw === 'string' ? dateRaw : '';
    for (const t of list) {
      if (!isObj(t) || typeof t.dia_id !== 'string' || typeof t.text !== 'string') continue;
      const speaker = typeof t.speaker === 'string' ? t.speaker : '';
      const caption = typeof t.blip_caption === 'string' ? t.blip_caption : undefined;
      turns.push({ diaId: t.dia_id, session: n, speaker, date, text: turnText(speaker, date, t.text, caption) });
    }
  }
  const known = new Set(turns.map((t) => t.diaId));
  const questions: LocomoQuestion[] = [];
  const qa = Array.isArray(raw.qa) ? raw.qa : [];
  for (const q of qa) {
    if (!isObj(q) || typeof q.question !== 'string') continue;
    const ids = Array.isArray(q.evidence) ? q.evidence.flatMap(parseEvidence) : [];
    const evidence = [...new Set(ids.filter((e) => known.has(e)))];
    const missingEvidence = ids.filter((e) => !known.has(e));
    questions.push({ question: q.question, category: typeof q.category === 'number' ? q.category : 0, evidence, missingEvidence });
  }
  return { id, turns, questions };
}

/** Parse a whole LoCoMo file's JSON (a list of conversations). */
export function parseLocomo(json: unknown): LocomoConversation[] {
  if (!Array.isArray(json)) throw new Error('a LoCoMo file is a JSON list of conversations');
  return json.map((c, i) => parseConversation(c, i));
}

/** Questions that count for recall: evidence present and not adversarial. */
export function scoredQuestions(conv: LocomoConversation): LocomoQuestion[] {
  return conv.questions.filter((q) => q.category !== ADVERSARIAL_CATEGORY && q.evidence.length > 0);
}

/** A BEIR-format data set built from LoCoMo's extracted observations (facts with their
 *  source turn): corpus = facts, queries = non-adversarial questions, a fact is relevant
 *  (grade 1) to a question when its source turn is one of the question's evidence turns.
 *  A second, differently shaped corpus (short third-person facts, all conversations in one
 *  store) to check that fusion settings chosen on turns hold elsewhere. Pure. */
export function observationsAsBeir(json: unknown): { corpus: string; queries: string; qrels: string } {
  if (!Array.isArray(json)) throw new Error('a LoCoMo file is a JSON list of conversations');
  const corpus: string[] = [];
  const queries: string[] = [];
  const qrels: string[] = ['query-id\tcorpus-id\tscore'];
  json.forEach((raw, ci) => {
    if (!isObj(raw)) return;
    const conv = parseConversation(raw, ci);
    const factsByTurn = new Map<string, string[]>();
    const obs = isObj(raw.observation) ? raw.observation : {};
    for (const [key, bySpeaker] of Object.entries(obs)) {
      if (!isObj(bySpeaker)) continue;
      for (const [speaker, facts] of Object.entries(bySpeaker)) {
        if (!Array.isArray(facts)) continue;
        facts.forEach((f, fi) => {
          if (!Array.isArray(f) || typeof f[0] !== 'string') return;
          const id = `${conv.id}:${key}:${speaker}:${fi}`;
          corpus.push(JSON.stringify({ _id: id, title: '', text: f[0] }));
          const turns = (Array.isArray(f[1]) ? f[1] : [f[1]]).flatMap(parseEvidence);
          for (const t of turns) {
            const list = factsByTurn.get(t) ?? [];
            list.push(id);
            factsByTurn.set(t, list);
          }
        });
      }
    }
    scoredQuestions(conv).forEach((q, qi) => {
      const rel = new Set(q.evidence.flatMap((e) => factsByTurn.get(e) ?? []));
      if (rel.size === 0) return;
      const qid = `${conv.id}#${qi}`;
      queries.push(JSON.stringify({ _id: qid, text: q.question }));
      for (const d of rel) qrels.push(`${qid}\t${d}\t1`);
    });
  });
  return { corpus: corpus.join('\n') + '\n', queries: queries.join('\n') + '\n', qrels: qrels.join('\n') + '\n' };
}

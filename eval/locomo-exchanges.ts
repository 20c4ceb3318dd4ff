/**
 * LoCoMo conversations as live sessions (for eval/locomo-replay.ts): who "the person" is
 * (speaker A), each session's turns as exchanges (an A turn opens one, the B turns up to the
 * next A turn are its reply; B turns before the first A turn form a prompt-less, injected
 * exchange), their times (the session's date, then EXCHANGE_SPACING_MS per exchange; the reply
 * settles REPLY_MS after the prompt), and the gold links between turns through shared QA
 * evidence. Pure.
 */
import type { Exchange } from '../shared/types.js';
import type { LocomoConversation, LocomoTurn } from './locomo.js';
import type { TimedExchange } from './replay-rows.js';

/** Time between two exchanges of a replayed session (ms): a chat's pace. */
export const EXCHANGE_SPACING_MS = 60_000;
/** Time from a prompt to its settled reply (ms). */
export const REPLY_MS = 20_000;

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** `1:56 pm on 8 May, 2023` → epoch ms (UTC); null when it does not parse. Pure. */
export function parseLocomoDate(s: string): number | null {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(s);
  if (!m) return null;
  const month = MONTHS.indexOf(m[5].toLowerCase());
  if (month < 0) return null;
  let hour = Number(m[1]) % 12;
  if (m[3].toLowerCase() === 'pm') hour += 12;
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

/** A conversation plus who "the person" is (speaker A: whose turns are prompts). */
export interface ReplayConversation {
  conv: LocomoConversation;
  speakerA: string;
}

/** The speaker_a of each raw conversation (falls back to the first turn's speaker). */
export function speakersA(json: unknown, convs: LocomoConversation[]): ReplayConversation[] {
  const raw = Array.isArray(json) ? json : [];
  return convs.map((conv, i) => {
    const c = (raw[i] as { conversation?: { speaker_a?: unknown } } | undefined)?.conversation;
    const a = typeof c?.speaker_a === 'string' ? c.speaker_a : (conv.turns[0]?.speaker ?? '');
    return { conv, speakerA: a };
  });
}

/** The words of a turn as spoken live (the indexed text without its `speaker (date): ` head). */
export function spokenText(t: LocomoTurn): string {
  const head = t.date ? `${t.speaker} (${t.date}): ` : `${t.speaker}: `;
  return t.text.startsWith(head) ? t.text.slice(head.length) : t.text;
}

export interface SessionExchange {
  exchange: Exchange;
  /** Dia ids of the turns in it, in order. */
  turnIds: string[];
}

/** A session's turns → exchanges (A opens, B replies). Pure. */
export function sessionExchanges(convId: string, session: number, turns: LocomoTurn[], speakerA: string, start: number, cwd: string): SessionExchange[] {
  const out: SessionExchange[] = [];
  let offset = 0;
  let cur: { user: string[]; asst: string[]; ids: string[]; prompt: boolean } | null = null;
  const close = () => {
    if (!cur) return;
    const user = cur.user.join('\n');
    const assistant = cur.asst.join('\n');
    const bytes = Buffer.byteLength(user, 'utf8') + Buffer.byteLength(assistant, 'utf8') + 2;
    const index = out.length;
    out.push({
      exchange: {
        sessionId: `${convId}-session-${session}`,
        uuid: cur.ids[0],
        index,
        startOffset: offset,
        endOffset: offset + bytes,
        timestamp: start + index * EXCHANGE_SPACING_MS,
        cwd,
        gitBranch: null,
        entrypoint: null,
        isSidechain: false,
        user,
        assistant,
        toolCalls: [],
        toolErrors: [],
        assistantVisible: assistant.length > 0,
        injected: !cur.prompt,
      },
      turnIds: cur.ids,
    });
    offset += bytes;
    cur = null;
  };
  for (const t of turns) {
    if (t.speaker === speakerA) {
      if (cur && (cur.asst.length > 0 || !cur.prompt)) close();
      cur ??= { user: [], asst: [], ids: [], prompt: true };
      cur.user.push(spokenText(t));
    } else {
      cur ??= { user: [], asst: [], ids: [], prompt: false };
      cur.asst.push(spokenText(t));
    }
    cur.ids.push(t.diaId);
  }
  close();
  return out;
}

/** An exchange as replay feeds it: settled REPLY_MS after its prompt; the hook fires at a
 *  typed prompt. `seed`: history that warms a session, never offered. */
export function timed(se: SessionExchange, seed = false): TimedExchange {
  return { exchange: se.exchange, settledAt: se.exchange.timestamp + REPLY_MS, hookFires: !se.exchange.injected, seed };
}

/** Turn ids linked to each turn id through a shared QA evidence list (self excluded). */
export function evidenceLinks(conv: LocomoConversation): Map<string, Set<string>> {
  const linked = new Map<string, Set<string>>();
  for (const q of conv.questions) {
    for (const e of q.evidence) {
      for (const o of q.evidence) {
        if (o === e) continue;
        let s = linked.get(e);
        if (!s) linked.set(e, (s = new Set()));
        s.add(o);
      }
    }
  }
  return linked;
}

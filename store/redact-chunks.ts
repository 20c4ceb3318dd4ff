/**
 * Chunks on their way into the team store (`store push` of a local store, store/push.ts)
 * redacted field by field with the indexer's redactor (shared/redact.ts): heading, text,
 * aliases, the episode's action, fix, note, head and words, a quoted signature's head, words
 * and fix. A local store the indexer redacted comes out unchanged (the markers are not
 * secrets): this is the second line of defence (push refuses a store not redacted with the
 * current rules). An episode whose head changed gets the signature of its redacted head (the
 * same formula as shared/error-signature.ts).
 */
import { hash53 } from '../shared/error-signature.js';
import type { Redactor } from '../shared/redact.js';
import type { ChunkInput, EpisodeInput, QuotedSignature } from './types.js';

function lines(r: Redactor, xs: string[]): string[] {
  let changed = false;
  const out = xs.map((x) => {
    const y = r.redact(x);
    if (y !== x) changed = true;
    return y;
  });
  return changed ? out : xs;
}

function episode(r: Redactor, e: EpisodeInput): EpisodeInput {
  const head = lines(r, e.head);
  return {
    ...e,
    sig: head === e.head ? e.sig : hash53(head.join('\n')),
    head,
    words: lines(r, e.words),
    action: r.redact(e.action),
    fix: r.redact(e.fix),
    ...(e.note !== undefined ? { note: r.redact(e.note) } : {}),
  };
}

function quoted(r: Redactor, s: QuotedSignature): QuotedSignature {
  const head = lines(r, s.head);
  return { ...s, sig: head === s.head ? s.sig : hash53(head.join('\n')), head, words: lines(r, s.words), fix: r.redact(s.fix) };
}

export function redactChunk(r: Redactor, c: ChunkInput): ChunkInput {
  return {
    ...c,
    heading: r.redact(c.heading),
    text: r.redact(c.text),
    ...(c.aliases ? { aliases: lines(r, c.aliases) } : {}),
    ...(c.episode ? { episode: episode(r, c.episode) } : {}),
    ...(c.signatures ? { signatures: c.signatures.map((s) => quoted(r, s)) } : {}),
  };
}

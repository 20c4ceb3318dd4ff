/**
 * Chunks redacted field by field as the store keeps them (store/writer.ts, store/pg-writer.ts,
 * scanned by store/stored-texts.ts): heading, text, aliases (one per line), the episode's
 * action, fix, note, head (lines joined by newlines) and words (joined by spaces), a quoted
 * signature's head, words and fix. A list is redacted as the one string the store writes, so
 * a secret that only appears once words are put side by side (`csrf token` then a token's
 * characters, from an HTML page a test printed) is caught here and `store scan` — the same
 * detector over the same strings — finds nothing after it.
 *
 * Used by the indexer on every chunk it writes (indexer/indexer.ts, the derived-field pass
 * after the records were redacted) and by `store push` (store/push.ts, a second line of
 * defence). An episode's signature is kept: it is a hash of the head as the hook computes it
 * from the redacted error (so a later failure still finds its Past fix), never the text.
 */
import type { Redactor } from '../shared/redact.js';
import type { ChunkInput, EpisodeInput, QuotedSignature } from './types.js';

/** `xs` as the store joins them, redacted, split again; the same array when nothing changed. */
function joined(r: Redactor, xs: string[], sep: string): string[] {
  if (xs.length === 0) return xs;
  const all = xs.join(sep);
  const y = r.redact(all);
  return y === all ? xs : y.split(sep);
}

function episode(r: Redactor, e: EpisodeInput): EpisodeInput {
  return {
    ...e,
    head: joined(r, e.head, '\n'),
    words: joined(r, e.words, ' '),
    action: r.redact(e.action),
    fix: r.redact(e.fix),
    ...(e.note !== undefined ? { note: r.redact(e.note) } : {}),
  };
}

function quoted(r: Redactor, s: QuotedSignature): QuotedSignature {
  return { ...s, head: joined(r, s.head, '\n'), words: joined(r, s.words, ' '), fix: r.redact(s.fix) };
}

export function redactChunk(r: Redactor, c: ChunkInput): ChunkInput {
  return {
    ...c,
    heading: r.redact(c.heading),
    text: r.redact(c.text),
    ...(c.aliases ? { aliases: joined(r, c.aliases, '\n') } : {}),
    ...(c.episode ? { episode: episode(r, c.episode) } : {}),
    ...(c.signatures ? { signatures: c.signatures.map((s) => quoted(r, s)) } : {}),
  };
}

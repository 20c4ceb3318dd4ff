/**
 * transformers.js (2.17) builds its WordPiece / BPE tokenizer's token → id Map from the
 * tokenizer.json vocabulary object and then keeps that object too (`tokenizer.model.config.vocab`,
 * read only by the constructor): a second copy of the vocabulary for as long as the embedder
 * lives — 3.1 MB of V8 heap for the offline model's 80k tokens, ≈ 1.2 MB for MiniLM's 30k. The
 * daemon keeps its embedder for its whole life (idle RSS: docs/DAEMON.md). dropVocabCopy()
 * removes that object once the Map holds every one of its tokens; any other shape (another
 * tokenizer model, another transformers.js) is left untouched. Pure: changes only its argument.
 */

/** The part of a transformers.js tokenizer this module looks at. */
interface TokenizerShape {
  model?: { config?: { vocab?: unknown }; tokens_to_ids?: unknown };
}

/** Drop the vocabulary object the tokenizer model kept after building its Map; true when dropped. */
export function dropVocabCopy(tokenizer: unknown): boolean {
  const model = (tokenizer as TokenizerShape | null)?.model;
  const vocab = model?.config?.vocab;
  const map = model?.tokens_to_ids;
  if (!model?.config || !(map instanceof Map) || vocab === null || typeof vocab !== 'object' || Array.isArray(vocab)) return false;
  const tokens = Object.keys(vocab);
  if (tokens.length !== map.size || !tokens.every((t) => map.get(t) === (vocab as Record<string, unknown>)[t])) return false;
  delete model.config.vocab;
  return true;
}

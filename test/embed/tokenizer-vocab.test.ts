/**
 * embed/tokenizer-vocab.ts: the embedder's tokenizer no longer holds the vocabulary object, and
 * tokenizes exactly as a tokenizer that kept it (same ids and mask for varied texts); shapes
 * other than "a Map holding every token of the object" are left untouched.
 */
import { describe, it, expect } from 'vitest';
import { dirname, basename } from 'node:path';
import { offlineEmbedder } from '../helpers/embedder.js';
import { offlineModelPath } from '../helpers/model.js';
import { dropVocabCopy } from '../../embed/tokenizer-vocab.js';

type Tokenize = (texts: string[], opts: { padding: boolean; truncation: boolean }) => Record<string, { data: ArrayLike<bigint | number> }>;

describe('dropVocabCopy', () => {
  it("the embedder's tokenizer drops the copy and tokenizes as one that kept it", async () => {
    const e = await offlineEmbedder();
    const dropped = (e as unknown as { extractor: { tokenizer: Tokenize & { model: { config: Record<string, unknown> } } } }).extractor.tokenizer;
    expect('vocab' in dropped.model.config).toBe(false);
    const { AutoTokenizer, env } = await import('@xenova/transformers');
    env.allowRemoteModels = false;
    env.localModelPath = dirname(offlineModelPath()) + '/';
    const kept = (await AutoTokenizer.from_pretrained(basename(offlineModelPath()))) as unknown as Tokenize & { model: { config: Record<string, unknown> } };
    expect('vocab' in kept.model.config).toBe(true);
    const texts = ['The database connection pool times out', 'ECONNRESET at pool.acquire (/src/db.ts:12:3)', 'résumé naïve 日本語 unknownwordxyz', ''];
    const a = dropped(texts, { padding: true, truncation: true });
    const b = kept(texts, { padding: true, truncation: true });
    expect(Array.from(a.input_ids.data, Number)).toEqual(Array.from(b.input_ids.data, Number));
    expect(Array.from(a.attention_mask.data, Number)).toEqual(Array.from(b.attention_mask.data, Number));
  });

  it('leaves other shapes alone', () => {
    const mismatch = { model: { config: { vocab: { a: 0, b: 1 } }, tokens_to_ids: new Map([['a', 0]]) } };
    const unigram = { model: { config: { vocab: [['a', -1]] }, tokens_to_ids: new Map([['a', 0]]) } };
    const noMap = { model: { config: { vocab: { a: 0 } } } };
    for (const t of [mismatch, unigram, noMap, null, {}]) expect(dropVocabCopy(t)).toBe(false);
    expect(mismatch.model.config.vocab).toEqual({ a: 0, b: 1 });
    const ok = { model: { config: { vocab: { a: 0, b: 1 } as Record<string, number> | undefined }, tokens_to_ids: new Map([['a', 0], ['b', 1]]) } };
    expect(dropVocabCopy(ok)).toBe(true);
    expect(ok.model.config.vocab).toBeUndefined();
  });
});

/**
 * embed/no-images.ts: once the embedder has loaded transformers.js, the `sharp` module it
 * imported is the stand-in (calling it throws ImagesNotSupported), libvips is not mapped into
 * the process (Linux), and embeddings are what they are; a second call changes nothing.
 * (Each test file runs in its own process: nothing else loaded sharp before.)
 */
import { describe, it, expect } from 'vitest';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { offlineEmbedder } from '../helpers/embedder.js';
import { cosine } from '../../embed/embedder.js';
import { skipImageLibrary, ImagesNotSupported, TRANSFORMERS_PACKAGE } from '../../embed/no-images.js';

describe('the embedder without the image library', () => {
  it('transformers.js gets the stand-in for sharp; libvips is never loaded; text embeds as before', async () => {
    const e = await offlineEmbedder();
    const here = createRequire(import.meta.url);
    const file = createRequire(here.resolve(TRANSFORMERS_PACKAGE)).resolve('sharp');
    const loaded = here.cache[file]?.exports as () => unknown;
    expect(typeof loaded).toBe('function');
    expect(() => loaded()).toThrow(ImagesNotSupported);
    if (existsSync('/proc/self/maps')) expect(readFileSync('/proc/self/maps', 'utf8')).not.toMatch(/libvips/);
    const [a, b] = await e.embed(['database connection pool timeout', 'postgres pool connections time out']);
    expect(cosine(a, b)).toBeGreaterThan(0.5);
    expect(skipImageLibrary()).toBeNull(); // already in the cache: left as it is
    expect(here.cache[file]?.exports).toBe(loaded);
  });
});

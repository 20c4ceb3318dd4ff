/**
 * The embedder reads text only, but transformers.js imports `sharp` (an image library over
 * libvips) when it loads: ≈ 8 MB more resident memory in every process that embeds, the daemon
 * idling included (docs/DAEMON.md). skipImageLibrary(), called before transformers.js is first
 * imported, puts a stand-in for `sharp` into Node's CommonJS module cache under the file
 * transformers.js would load — Node's ESM loader takes a CommonJS module it finds loaded there
 * — so libvips is never loaded, and an image path of transformers.js, if one ever ran, would
 * throw ImagesNotSupported. Nothing changes when `sharp` is loaded already or does not resolve.
 * Data in: Node's module resolution from the transformers.js package. Out: one cache entry.
 */
import { createRequire, Module } from 'node:module';

/** The transformers.js package whose `sharp` import is stood in for. */
export const TRANSFORMERS_PACKAGE = '@xenova/transformers';
const IMAGE_LIBRARY = 'sharp';

export class ImagesNotSupported extends Error {
  constructor() {
    super('active-brain embeds text only: the image library (sharp) is not loaded');
  }
}

/** Install the stand-in; returns the file it stands in for, or null when nothing was done. */
export function skipImageLibrary(): string | null {
  const here = createRequire(import.meta.url);
  let file: string;
  try {
    file = createRequire(here.resolve(TRANSFORMERS_PACKAGE)).resolve(IMAGE_LIBRARY);
  } catch {
    return null; // transformers.js or sharp not installed: their own import reports it
  }
  if (here.cache[file]) return null; // loaded already (someone uses images): keep it
  const stand = new Module(file);
  stand.filename = file;
  stand.loaded = true;
  // transformers.js only checks that the default export is truthy at load; calls would be for images.
  stand.exports = function sharp(): never {
    throw new ImagesNotSupported();
  };
  here.cache[file] = stand;
  return file;
}

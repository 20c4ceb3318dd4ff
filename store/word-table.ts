/**
 * A hash table from words to values that is looked up by a span of a text (store/sqlite-terms.ts
 * reads every word of every chunk this way): the caller hashes the word's characters while it
 * scans them (hashStep, folding ASCII capitals to lower case on the way), and the table compares
 * the span with its keys character by character — no substring and no V8 string hash per word.
 * A Map<string, …> fed with `text.match(...)` words cost ~3× as much per chunk (each word a
 * fresh string hashed again by the Map). Open addressing with linear probing over a
 * power-of-two slot array, at most half full. Pure data structure: no I/O.
 */

/** FNV-1a's 32-bit offset basis and prime: hashStep starts a word from HASH_SEED. */
export const HASH_SEED = 0x811c9dc5 | 0; // as an Int32, as the table stores hashes
const HASH_PRIME = 0x01000193;
/** Slots start at this many and double when more than half are taken. */
const INITIAL_SLOTS = 1_024;
const FREE = -1;
/** ASCII capitals: 'A'…'Z', and the offset to their lower-case letters. */
const UPPER_A = 65;
const UPPER_Z = 90;
const CASE_OFFSET = 32;

/** The hash of a word extended by one character code (the code as the key holds it). */
export function hashStep(hash: number, code: number): number {
  return Math.imul(hash ^ code, HASH_PRIME);
}

/** The hash of a whole word (what hashStep gives over its characters). */
export function hashWord(word: string): number {
  let h = HASH_SEED;
  for (let i = 0; i < word.length; i++) h = hashStep(h, word.charCodeAt(i));
  return h;
}

/** A character code with ASCII capitals folded to lower case (every other code unchanged). */
export function foldAscii(code: number): number {
  return code >= UPPER_A && code <= UPPER_Z ? code + CASE_OFFSET : code;
}

export class WordTable<V> {
  private keys: string[] = [];
  /** hashes[e]: entry e's hash (Int32: Math.imul's results, most of them beyond a small integer). */
  private hashes = new Int32Array(INITIAL_SLOTS / 2);
  private values: V[] = [];
  /** Entry number per slot (FREE: empty). */
  private slots = new Int32Array(INITIAL_SLOTS).fill(FREE);

  get size(): number {
    return this.keys.length;
  }

  /** The value of `word`, or undefined. */
  get(word: string): V | undefined {
    const h = hashWord(word);
    const mask = this.slots.length - 1;
    for (let s = spread(h) & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s];
      if (e === FREE) return undefined;
      if (this.hashes[e] === h && this.keys[e] === word) return this.values[e];
    }
  }

  /** The value of text[start, end) with ASCII capitals folded to lower case (`hash`: hashStep over
   *  those folded codes from HASH_SEED), or undefined. Keys are compared code by code. */
  getSpan(text: string, start: number, end: number, hash: number): V | undefined {
    const len = end - start;
    const mask = this.slots.length - 1;
    for (let s = spread(hash) & mask; ; s = (s + 1) & mask) {
      const e = this.slots[s];
      if (e === FREE) return undefined;
      if (this.hashes[e] !== hash) continue;
      const key = this.keys[e];
      if (key.length !== len) continue;
      let i = 0;
      while (i < len && foldAscii(text.charCodeAt(start + i)) === key.charCodeAt(i)) i++;
      if (i === len) return this.values[e];
    }
  }

  /** Set the value of `word` (added when absent). */
  set(word: string, value: V): void {
    const h = hashWord(word);
    const mask = this.slots.length - 1;
    let s = spread(h) & mask;
    for (; ; s = (s + 1) & mask) {
      const e = this.slots[s];
      if (e === FREE) break;
      if (this.hashes[e] === h && this.keys[e] === word) {
        this.values[e] = value;
        return;
      }
    }
    const e = this.keys.length;
    if (e === this.hashes.length) {
      const hashes = new Int32Array(e * 2);
      hashes.set(this.hashes);
      this.hashes = hashes;
    }
    this.slots[s] = e;
    this.keys.push(word);
    this.hashes[e] = h;
    this.values.push(value);
    if (this.keys.length * 2 > this.slots.length) this.grow();
  }

  clear(): void {
    this.keys = [];
    this.hashes = new Int32Array(INITIAL_SLOTS / 2);
    this.values = [];
    this.slots = new Int32Array(INITIAL_SLOTS).fill(FREE);
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2).fill(FREE);
    const mask = slots.length - 1;
    for (let e = 0; e < this.keys.length; e++) {
      let s = spread(this.hashes[e]) & mask;
      while (slots[s] !== FREE) s = (s + 1) & mask;
      slots[s] = e;
    }
    this.slots = slots;
  }
}

/** FNV's low bits alone cluster on short words: fold the high half in before masking. */
function spread(h: number): number {
  return h ^ (h >>> 16);
}

/**
 * The reader core's in-memory indexes, the same for both backends: the vector matrix
 * (store/vector-matrix.ts) and the BM25 keyword index (store/keyword-index.ts) of the chunks a
 * reader may see, kept in step with the store incrementally. A backend supplies rows through
 * RowSource (store/reader.ts: the SQLite file; store/pg-reader.ts: what the role may see):
 * the visible ids and regions, and on request the vectors and terms of some ids. A sync lists
 * the visible ids in one snapshot, drops the rows gone, and fetches only the new rows.
 *
 * Also the keyword arm over the index (MemoryKeywordSearch): query tokens → the backend's
 * lexemes → document frequencies from the index → the rarest, pruned as store/term-stats.ts
 * selectQueryTerms says → BM25 top k.
 */
import type { Hit } from './types.js';
import { VectorMatrix, type ScanMethod } from './vector-matrix.js';
import { fillMatrix, type VectorRun } from './matrix-fill.js';
import { KeywordIndex, type KeywordFilter, type ParsedTsvector } from './keyword-index.js';
import { queryTokens } from './fts-query.js';
import { PRUNE_DEFAULTS, selectQueryTerms, type PruneOptions } from './term-stats.js';

/** Rows fetched per request while filling the in-memory indexes. */
export const FETCH_PAGE = 5_000;
/** A new vector matrix gets this factor of the rows it needs as capacity, so the chunks the
 *  writer adds next are appended in place (a new matrix costs a copy of every row: ~130 ms at
 *  100k × 100-d here) — 10 % more memory for it. */
export const MATRIX_HEADROOM = 1.1;

export interface FetchedRow {
  id: number;
  /** The stored vector (float32 bytes), when asked for. */
  vec?: Uint8Array | null;
  /** The chunk's index terms, when asked for. */
  terms?: ParsedTsvector | null;
}

/** What a backend supplies to the reader core. */
export interface RowSource {
  /** The vectors' dimension (null: no model recorded yet). */
  dim(): number | null;
  /** Run fn in one read snapshot (the id list and the rows fetched agree). */
  snapshot<T>(fn: () => T): T;
  /** Every visible chunk: ids ascending, regions[i] the region of ids[i]. */
  visible(): { ids: Int32Array; regions: Int32Array };
  /** Rows of these ids (any order; an id gone meanwhile is simply missing). */
  fetch(ids: number[], want: { vec: boolean; terms: boolean }): Iterable<FetchedRow>;
  /** Every stored vector of dimension `dim`, ids ascending, many rows per run: a first fill of
   *  the matrix reads these instead of one row at a time (store/matrix-fill.ts). */
  vectorRuns?(dim: number): Iterable<VectorRun>;
  /** Every row, for a first fill (a plain scan: cheaper than asking for every id). */
  all?(want: { vec: boolean; terms: boolean }): Iterable<FetchedRow>;
  /** The visible chunks with ids above `after`, when exactly `count` visible chunks have ids up
   *  to `after` (nothing was removed: the usual index run only adds); null otherwise (then a
   *  full listing decides). Saves listing every id after a commit that only added chunks. */
  appended?(after: number, count: number): { ids: Int32Array; regions: Int32Array } | null;
  /** True when an id may come back with other content (SQLite reuses the largest ids after a
   *  delete): then any change that is not a pure append refills the indexes from scratch,
   *  since an id listed before and now may no longer be the same chunk. */
  idsReused?: boolean;
}

export class LocalIndexes {
  matrix: VectorMatrix | null = null;
  keywords: KeywordIndex | null = null;

  private withKeywords: boolean;
  /** What the last completed sync saw: how many visible chunks, and the largest id. */
  private seen: { count: number; maxId: number } | null = null;
  private keywordsHeld = false;

  constructor(
    private readonly opts: {
      scanMethod?: ScanMethod;
      keywords: boolean;
      /** On a refill (RowSource.idsReused): rebuild the keyword index in the sync ('rebuild'),
       *  or drop it and let the owner rebuild it in the background ('drop'). */
      onRefill?: 'rebuild' | 'drop';
    },
  ) {
    this.withKeywords = opts.keywords;
  }

  /** Take over a keyword index built elsewhere (SQLite's warm-up, page by page): from the next
   *  sync on it is kept in step like the matrix (that sync also catches rows that changed while
   *  it was built: gone ones removed, missing ones added). */
  adoptKeywords(index: KeywordIndex): void {
    this.withKeywords = true;
    this.keywords = index;
    this.seen = null; // the next sync lists every row
  }

  /** Bring both indexes to the source's current rows (incrementally). A failure half-way
   *  discards the keyword index (it changes in place): the next sync starts it over. */
  sync(source: RowSource): { refilled: boolean } {
    const dim = source.dim();
    let keywords = this.withKeywords ? (this.keywords ?? new KeywordIndex()) : null;
    this.keywordsHeld = this.keywords !== null;
    this.keywords = null;
    let refilled = false;
    const m = source.snapshot(() => {
      const { ids, regions, appended } = this.listVisible(source, dim);
      if (!appended && this.seen !== null && source.idsReused) {
        // Not a pure append on a store that reuses ids: start over.
        refilled = true;
        this.matrix = null;
        if (keywords && this.opts.onRefill === 'drop') this.withKeywords = false;
        keywords = this.withKeywords ? new KeywordIndex() : null;
      }
      // Appended rows only: every one is new, every row held stays.
      const needsText = !keywords ? new Uint8Array(ids.length) : appended ? new Uint8Array(ids.length).fill(1) : keywords.syncTo(ids, regions);
      const old = this.matrix && dim !== null && this.matrix.dim === dim ? this.matrix : null;
      // Row of each visible id in the old matrix (its rows are in id order too), −1 = not there.
      const oldRow = new Int32Array(ids.length).fill(-1);
      // No matrix of this dimension yet: fill it from the backend's runs of vectors when it has them.
      const bulk = !old && dim !== null && source.vectorRuns
        ? fillMatrix(dim, Math.ceil(ids.length * MATRIX_HEADROOM), ids, regions, source.vectorRuns(dim), this.opts.scanMethod)
        : null;
      if (old && !appended) for (let i = 0, r = 0; i < ids.length; i++) {
        while (r < old.n && old.ids[r] < ids[i]) r++;
        if (r < old.n && old.ids[r] === ids[i]) oldRow[i] = r;
      }
      // Per visible row: fetch it (its vector, its terms or both)? Rows are found by binary search
      // in `ids` and fetched vectors kept by position: no map of every id on a first fill.
      const need = new Uint8Array(ids.length);
      let needVec = 0;
      let needText = 0;
      for (let i = 0; i < ids.length; i++) {
        const vec = !bulk && dim !== null && oldRow[i] < 0;
        if (vec) needVec++;
        if (needsText[i]) needText++;
        if (needsText[i] || vec) need[i] = 1;
      }
      const fetched: Array<Uint8Array | undefined> = new Array(ids.length);
      const take = (r: FetchedRow) => {
        const at = positionOf(ids, r.id);
        if (at < 0 || !need[at]) return;
        if (oldRow[at] < 0 && r.vec) fetched[at] = r.vec;
        if (keywords && needsText[at] && r.terms) keywords.addParsed(r.id, regions[at], r.terms);
      };
      // A first fill of the vectors, or of the terms (a keyword index dropped), reads every row
      // in one scan — only what every row needs: a keyword index adopted from warm() before the
      // first search needs every vector but no terms (reading them again costs seconds at 100k).
      let vecDone = false;
      let textDone = false;
      if (source.all && ids.length > FETCH_PAGE && (needVec === ids.length || needText === ids.length)) {
        vecDone = needVec === ids.length;
        textDone = needText === ids.length;
        for (const r of source.all({ vec: vecDone, terms: textDone && !!keywords })) take(r);
      }
      const wantsVec = (i: number) => !bulk && !vecDone && dim !== null && oldRow[i] < 0;
      const wantsText = (i: number) => !textDone && needsText[i] === 1;
      const rest: number[] = [];
      for (let i = 0; i < ids.length; i++) if (need[i] && (wantsVec(i) || wantsText(i))) rest.push(i);
      for (let i = 0; i < rest.length; i += FETCH_PAGE) {
        const page = rest.slice(i, i + FETCH_PAGE);
        const wantVec = page.some(wantsVec);
        const wantTerms = !!keywords && page.some(wantsText);
        for (const r of source.fetch(page.map((at) => ids[at]), { vec: wantVec, terms: wantTerms })) take(r);
      }
      keywords?.maintain();
      const m = dim === null ? null : bulk ?? (appended && old ? this.appendMatrix(dim, old, ids, regions, fetched) : this.refreshMatrix(dim, old, ids, regions, oldRow, fetched));
      const maxId = ids.length ? ids[ids.length - 1] : 0;
      this.seen = appended && this.seen
        ? { count: this.seen.count + ids.length, maxId: Math.max(this.seen.maxId, maxId) }
        : { count: ids.length, maxId };
      return m;
    });
    this.matrix = m;
    this.keywords = keywords;
    return { refilled };
  }

  /** The rows to sync: only the appended ones when the source can tell nothing was removed and
   *  the matrix (same dimension) and keyword index already hold the rest; else every visible row. */
  private listVisible(source: RowSource, dim: number | null): { ids: Int32Array; regions: Int32Array; appended: boolean } {
    // (sync() has taken the keyword index out of this.keywords: `held` says whether it had one.)
    const held = this.seen !== null && (dim === null || this.matrix?.dim === dim) && (!this.withKeywords || this.keywordsHeld);
    if (held && source.appended) {
      const added = source.appended(this.seen!.maxId, this.seen!.count);
      if (added) return { ...added, appended: true };
    }
    return { ...source.visible(), appended: false };
  }

  /** The old matrix with the appended rows added (in place when it has room). */
  private appendMatrix(dim: number, old: VectorMatrix, ids: Int32Array, regions: Int32Array, fetched: Array<Uint8Array | undefined>): VectorMatrix {
    let m = old;
    if (old.n + ids.length > old.capacity) {
      m = new VectorMatrix(dim, Math.ceil((old.n + ids.length) * MATRIX_HEADROOM), { method: this.opts.scanMethod });
      m.copyRows(old, 0, old.n);
    }
    for (let i = 0; i < ids.length; i++) {
      const blob = fetched[i];
      if (blob && blob.byteLength === dim * 4) m.addBlob(ids[i], regions[i], blob);
    }
    return m;
  }

  /** The matrix for the visible rows: the old one updated in place when every new row sorts
   *  after the rows it keeps (the usual case: the writer's new chunks get higher ids) and it
   *  has room, else a new one (with MATRIX_HEADROOM spare rows) copying the kept rows in runs. */
  private refreshMatrix(dim: number, old: VectorMatrix | null, ids: Int32Array, regions: Int32Array, oldRow: Int32Array, fetched: Array<Uint8Array | undefined>): VectorMatrix {
    const fresh = (i: number): Uint8Array | null => {
      const blob = fetched[i];
      // Gone meanwhile or of a foreign dimension: never mixed in.
      return blob && blob.byteLength === dim * 4 ? blob : null;
    };
    let appendOnly = old !== null;
    let added = 0;
    for (let i = 0; i < ids.length; i++) {
      if (oldRow[i] < 0) added++;
      else if (added > 0) appendOnly = false;
    }
    if (old && appendOnly) {
      const keep = new Uint8Array(old.n);
      for (let i = 0; i < ids.length; i++) if (oldRow[i] >= 0) keep[oldRow[i]] = 1;
      old.retain(keep);
      for (let i = 0, row = 0; i < ids.length; i++) if (oldRow[i] >= 0) old.regionIds[row++] = regions[i];
      let m = old;
      if (old.n + added > old.capacity) {
        m = new VectorMatrix(dim, Math.ceil((old.n + added) * MATRIX_HEADROOM), { method: this.opts.scanMethod });
        m.copyRows(old, 0, old.n);
      }
      for (let i = 0; i < ids.length; i++) {
        if (oldRow[i] >= 0) continue;
        const v = fresh(i);
        if (v) m.addBlob(ids[i], regions[i], v);
      }
      return m;
    }
    const m = new VectorMatrix(dim, Math.ceil(ids.length * MATRIX_HEADROOM), { method: this.opts.scanMethod });
    for (let i = 0; i < ids.length; ) {
      if (old && oldRow[i] >= 0) {
        // A run of rows the old matrix holds in the same order: one copy, regions set after.
        let j = i + 1;
        while (j < ids.length && oldRow[j] === oldRow[j - 1] + 1) j++;
        const at = m.n;
        m.copyRows(old, oldRow[i], j - i);
        for (let x = i; x < j; x++) m.regionIds[at + x - i] = regions[x];
        i = j;
        continue;
      }
      const v = fresh(i);
      if (v) m.addBlob(ids[i], regions[i], v);
      i++;
    }
    return m;
  }
}

/** The position of `id` in the ascending `ids`, or −1. */
function positionOf(ids: Int32Array, id: number): number {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = ids[mid];
    if (v < id) lo = mid + 1;
    else if (v > id) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** The keyword arm over a KeywordIndex: `lexemesOf` is the backend's tokenizer (FTS5's terms
 *  on SQLite, the server's `english` configuration on PostgreSQL), one lexeme standing for each
 *  query token (a token with none is dropped). */
export function memoryKeywordSearch(
  query: string,
  k: number,
  index: KeywordIndex,
  filter: KeywordFilter,
  lexemesOf: (tokens: string[]) => string[][],
  prune: PruneOptions = PRUNE_DEFAULTS,
): Hit[] {
  const tokens = queryTokens(query);
  if (k <= 0 || !tokens.length || index.size === 0) return [];
  // One lexeme per token, duplicates kept: FTS5 scores `"runs" OR "running"` as two phrases of
  // the one term `run`, and so does this arm.
  const lex = lexemesOf(tokens).map((l) => l[0]).filter((l): l is string => !!l);
  if (!lex.length) return [];
  const df = index.docFrequencies(lex);
  const chosen = selectQueryTerms(lex, df, index.size, prune).tokens;
  const dfOf = new Map(lex.map((l, i) => [l, df[i]]));
  return chosen.length ? index.search(chosen, k, filter, chosen.map((l) => dfOf.get(l)!)) : [];
}

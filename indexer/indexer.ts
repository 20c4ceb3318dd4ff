/**
 * The incremental indexer: registered sources (notes folders, transcript roots) → chunks
 * with vectors in the knowledge store. Reads files (indexer/files.ts,
 * indexer/transcript-file.ts), chunks them (indexer/markdown.ts,
 * indexer/transcript-chunks.ts), embeds in batches (indexer/embed-batch.ts), writes through StoreWriter.
 *
 * Per file: size + mtime equal to the stored ones → unchanged (not read); else the content
 * hash decides (equal → unchanged, the new stat recorded); else re-chunked and replaced in
 * ONE store transaction, so a crash mid-index leaves every document either old or new,
 * never half. Only chunks whose text the document does not already store are embedded
 * (StoreWriter.reusableVectors): a transcript that grew costs the embedding of its new
 * exchanges and episodes, not of the whole session. Transcripts also give error episodes
 * (indexer/episodes.ts), notes the error signatures they quote (indexer/note-signatures.ts).
 * A stored hash with STALE_HASH_PREFIX (a transcript whose last turn was still open, a
 * document from before schema v3) is re-read whatever its stat says. Files gone from a source are removed; a missing or unreadable
 * source (or sub-folder) removes nothing. Bad input (unreadable, binary, too large, not
 * UTF-8, embedding failure) is skipped, counted in the summary and reported as a Problem;
 * indexing goes on. The caller holds the indexer lock (indexer/lock.ts).
 *
 * Redaction (shared/redact.ts, docs/REDACTION.md): a note's text and each transcript record
 * have their secrets replaced by markers before anything is chunked, embedded, stored or
 * signed. A store whose recorded redaction fingerprint differs from this run's (written before
 * redaction, or with other rules or `redact.*` config) has every document marked stale first,
 * so the run re-reads and re-redacts them (unchanged chunks keep their vectors); after a run
 * over every source the stored text is scanned, and the new fingerprint recorded only when no
 * secret is left (`redaction` in the summary says what is).
 */
import { stat } from 'node:fs/promises';
import { sep } from 'node:path';
import type { Config } from '../config/schema.js';
import type { Embedder } from '../embed/types.js';
import { STALE_HASH_PREFIX, type ChunkInput, type DocumentInput, type SourceRecord, type StoreWriter } from '../store/types.js';
import { chunkNote } from './markdown.js';
import { chunkTranscript } from './transcript-chunks.js';
import { episodesOf } from './episodes.js';
import { splitCopies } from './lineage.js';
import { quotedSignatures } from './note-signatures.js';
import { listSourceFiles, readNote, type Problem, type SkipReason } from './files.js';
import { hashFile, readTranscript } from './transcript-file.js';
import { silentProgress, type ProgressSink } from './progress.js';
import { createRedactor, type Redactor } from '../shared/redact.js';
import { redactChunk } from '../store/redact-chunks.js';
import { RedactedReader } from '../shared/redact-on-read.js';
import { scanStore, type ScanSummary } from '../store/secret-scan.js';
import { EPISODE_RULES_VERSION } from './episodes.js';
import { EmbedBatch } from './embed-batch.js';

export interface IndexSummary {
  sources: number;
  files_seen: number;
  indexed: number;
  unchanged: number;
  removed: number;
  skipped: Partial<Record<SkipReason, number>>;
  /** Indexed anyway, but not clean: invalid_utf8 (files decoded with replacement),
   *  malformed_lines / overlong_lines (transcript lines skipped), chunks_not_embedded
   *  (chunks left out: an embedding server refused their batch). */
  warnings: Record<string, number>;
  chunks_added: number;
  /** Chunks embedded this run (the rest of chunks_added reused their stored vectors). */
  chunks_embedded: number;
  /** Error-episode chunks among chunks_added. */
  episodes_added: number;
  /** Transcript exchanges left out of a document's chunks because another document (the
   *  session it was resumed / forked from, or its copy) already holds them (indexer/lineage.ts). */
  copied_exchanges: number;
  chunks_total: number;
  seconds: number;
  chunks_per_s: number;
  /** What was skipped and why (at most MAX_PROBLEMS listed; counts are complete). */
  problems: Problem[];
  /** Redaction: `rescrubbed` = the store was redacted by other rules (or none) and every
   *  document was re-read; `findings` = secrets still stored after the run (documents the run
   *  could not re-read, e.g. of a missing source); `scrubbed` = none left, fingerprint recorded. */
  redaction: { rescrubbed: boolean; scrubbed: boolean; findings: number };
  /** The store's episodes were cut and signed by other rules (an older active-brain): every
   *  document was re-read so their signatures match what the daemon and the hook sign now
   *  (unchanged chunks keep their vectors); the new version is recorded after a run over every
   *  source. */
  episodes_recut: boolean;
}

export interface IndexOptions {
  store: StoreWriter;
  /** The embedder, or a loader used only once something needs embedding (a no-change run
   *  then never loads the model). With a loader, `modelId` must be the id it will report. */
  embedder: Embedder | EmbedderLoader;
  config: Pick<Config, 'indexer' | 'daemon'> & Partial<Pick<Config, 'redact'>>;
  /** The secret redactor (default: built from config.redact). */
  redactor?: Redactor;
  /** Only these sources (default: every registered source). */
  sources?: SourceRecord[];
  /** Drop every document, chunk and vector (and the recorded model) first, then index all. */
  rebuild?: boolean;
  progress?: ProgressSink;
  /** Each problem as it happens (the CLI prints it on stderr). */
  onProblem?: (p: Problem) => void;
  /** The clock that decides whether a transcript's last turn is still open (default
   *  Date.now). A replay of history passes the replayed time: a copied file's mtime says
   *  nothing about when its session ended. */
  now?: () => number;
}

export interface EmbedderLoader {
  modelId: string;
  load(): Promise<Embedder>;
}

/** Problems listed in the summary (the counts in `skipped` are always complete). */
export const MAX_PROBLEMS = 100;

class IndexRun {
  readonly summary: IndexSummary = {
    sources: 0,
    files_seen: 0,
    indexed: 0,
    unchanged: 0,
    removed: 0,
    skipped: {},
    warnings: {},
    chunks_added: 0,
    chunks_embedded: 0,
    episodes_added: 0,
    copied_exchanges: 0,
    chunks_total: 0,
    seconds: 0,
    chunks_per_s: 0,
    problems: [],
    redaction: { rescrubbed: false, scrubbed: false, findings: 0 },
    episodes_recut: false,
  };
  private readonly redactor: Redactor;
  /** Records are read through it: one for the run, so text repeated across files is scanned once. */
  private readonly reader: RedactedReader;
  /** Message uuid → the document (path) that holds it, for documents seen in this run. */
  private readonly claimed = new Map<string, string>();
  private loaded: Embedder | null = null;
  private readonly batch: EmbedBatch;
  private filesDone = 0;
  private readonly progress: ProgressSink;

  constructor(private readonly opts: IndexOptions) {
    this.progress = opts.progress ?? silentProgress;
    this.redactor = opts.redactor ?? createRedactor(opts.config.redact);
    this.reader = new RedactedReader(this.redactor);
    this.batch = new EmbedBatch({ store: opts.store, embedder: () => this.embedder(), problem: (p) => this.problem(p), warn: (k, n) => this.warn(k, n), summary: this.summary });
  }

  /** The embedder, loaded on first use; the store records (or checks) its model then. */
  private async embedder(): Promise<Embedder> {
    if (this.loaded) return this.loaded;
    const e = this.opts.embedder;
    const embedder = 'load' in e ? await e.load() : e;
    this.opts.store.setModel(embedder.modelId, embedder.dim);
    this.loaded = embedder;
    return embedder;
  }

  problem(p: Problem): void {
    this.summary.skipped[p.reason] = (this.summary.skipped[p.reason] ?? 0) + 1;
    if (this.summary.problems.length < MAX_PROBLEMS) this.summary.problems.push(p);
    this.opts.onProblem?.(p);
  }

  warn(key: string, n = 1): void {
    if (n > 0) this.summary.warnings[key] = (this.summary.warnings[key] ?? 0) + n;
  }

  async run(): Promise<IndexSummary> {
    const t0 = performance.now();
    const { store } = this.opts;
    if (this.opts.rebuild) store.clearDocuments();
    const stored = store.model();
    // A different recorded model throws StoreModelMismatchError (re-index with --rebuild):
    // checked now when the ids differ (loading the model for its dimension), else when the
    // model is first needed.
    if (!('load' in this.opts.embedder) || (stored && stored.model !== this.opts.embedder.modelId)) await this.embedder();
    const sources = this.opts.sources ?? store.listSources();
    this.summary.sources = sources.length;
    const fingerprint = this.redactor.fingerprint;
    let rescrub = store.redaction() !== fingerprint;
    if (rescrub && store.info().documents === 0) {
      store.setRedaction(fingerprint); // nothing stored yet: nothing to re-scrub
      rescrub = false;
    }
    if (rescrub) {
      store.markAllStale(); // re-read and re-redact every document; unchanged chunks keep their vectors
      this.summary.redaction.rescrubbed = true;
    }
    // Episodes signed by other rules would never meet the errors signed now: re-cut them all.
    let recut = store.episodeRules() !== EPISODE_RULES_VERSION;
    if (recut && store.info().documents === 0) {
      store.setEpisodeRules(EPISODE_RULES_VERSION);
      recut = false;
    }
    if (recut && !rescrub) store.markAllStale();
    this.summary.episodes_recut = recut;

    const listings = sources.map((s) => ({ source: s, listing: listSourceFiles(s.path, s.kind) }));
    const total = listings.reduce((n, l) => n + l.listing.files.length, 0);
    this.progress.start(total);
    try {
      for (const { source, listing } of listings) {
        for (const p of listing.problems) this.problem(p);
        const seen = new Set<string>();
        for (const file of listing.files) {
          if (await this.indexFile(source, file)) seen.add(file);
          this.filesDone++;
          this.progress.update(this.filesDone, this.summary.chunks_added);
          if (this.batch.pendingChunks >= this.opts.config.indexer.embedFlushChunks) await this.batch.flush();
        }
        await this.batch.flush();
        this.removeDeleted(source, listing.problems, seen);
      }
    } finally {
      this.progress.done();
    }
    this.summary.files_seen = this.filesDone;
    this.recordRedaction(fingerprint, rescrub);
    // Every source re-read (a file that could not be is still marked stale, and re-read next run).
    if (recut && !this.opts.sources) store.setEpisodeRules(EPISODE_RULES_VERSION);
    this.summary.chunks_total = store.info().chunks;
    const seconds = (performance.now() - t0) / 1000;
    this.summary.seconds = Math.round(seconds * 100) / 100;
    this.summary.chunks_per_s = seconds > 0 ? Math.round(this.summary.chunks_added / seconds) : 0;
    return this.summary;
  }

  /** After a run over every source of a store to re-scrub: scan what is stored; record the
   *  fingerprint when no secret is left (a partial run leaves the store marked, so the next
   *  full `index` finishes the job). */
  private recordRedaction(fingerprint: string, rescrub: boolean): void {
    if (!rescrub) {
      this.summary.redaction.scrubbed = true;
      return;
    }
    if (this.opts.sources) return;
    const scan: ScanSummary = scanStore(this.opts.store, this.redactor);
    this.summary.redaction.findings = scan.findings;
    if (scan.findings === 0) {
      try {
        this.opts.store.purgeDeleted(); // the old text must not linger in free pages or the FTS index
      } catch {
        this.warn('purge_failed'); // a reader held the file: the next re-scrub run purges again
        return;
      }
      this.opts.store.setRedaction(fingerprint);
      this.summary.redaction.scrubbed = true;
    }
  }

  /** Index one file if it changed. Returns false when the file vanished (so it gets removed). */
  private async indexFile(source: SourceRecord, path: string): Promise<boolean> {
    const cfg = this.opts.config.indexer;
    let st;
    try {
      st = await stat(path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      this.problem({ path, reason: 'unreadable', message: `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? e}): skipped` });
      return true;
    }
    const mtime = Math.trunc(st.mtimeMs);
    const size = st.size;
    const limit = source.kind === 'notes' ? cfg.maxFileBytes : cfg.maxTranscriptBytes;
    if (size > limit) {
      this.problem({
        path,
        reason: 'too_large',
        message: `${path} is ${(size / 1048576).toFixed(1)} MB, over the ${(limit / 1048576).toFixed(1)} MB limit (indexer.${source.kind === 'notes' ? 'maxFileBytes' : 'maxTranscriptBytes'}): skipped`,
      });
      return true;
    }
    const existing = this.opts.store.getDocument(path);
    if (existing && existing.mtime === mtime && existing.size === size && !existing.hash.startsWith(STALE_HASH_PREFIX)) {
      this.summary.unchanged++;
      return true;
    }
    if (source.kind === 'notes') await this.indexNote(source, path, mtime, size, existing?.hash ?? null);
    else await this.indexTranscript(source, path, mtime, size, existing?.hash ?? null);
    return true;
  }

  private async indexNote(source: SourceRecord, path: string, mtime: number, size: number, oldHash: string | null): Promise<void> {
    const cfg = this.opts.config.indexer;
    const read = await readNote(path, cfg.maxReplacementShare);
    if (!read.ok) {
      this.problem(read.problem);
      return;
    }
    if (read.hash === oldHash) {
      this.opts.store.touchDocument(path, mtime, size);
      this.summary.unchanged++;
      return;
    }
    if (read.replaced > 0) this.warn('invalid_utf8');
    const note = chunkNote(this.redactor.redact(read.text), path, cfg); // redact:note
    const chunks: ChunkInput[] = note.chunks.map((c, i) => {
      const signatures = quotedSignatures(c.text);
      return {
        heading: c.heading,
        text: c.text,
        createdAt: mtime,
        ...(i === 0 && note.aliases.length ? { aliases: note.aliases } : {}),
        ...(signatures.length ? { signatures } : {}),
      };
    });
    this.queue({ sourceId: source.id, path, hash: read.hash, mtime, size, title: note.title }, chunks);
  }

  /** Queues a document for embedding and writing. The derived fields (titles, headings, episode
   *  heads and words, fixes) were made from redacted records and notes; each is redacted again as
   *  the store will keep it, so what is written is what `store scan` (the same detector) finds
   *  clean (store/redact-chunks.ts). */
  private queue(raw: DocumentInput, derived: ChunkInput[]): void {
    const doc = { ...raw, title: this.redactor.redact(raw.title) };
    const chunks = derived.map((c) => redactChunk(this.redactor, c)); // redact:derived
    this.batch.queue(doc, chunks);
  }

  private async indexTranscript(source: SourceRecord, path: string, mtime: number, size: number, oldHash: string | null): Promise<void> {
    const cfg = this.opts.config.indexer;
    let hash: string;
    try {
      hash = await hashFile(path);
      if (hash === oldHash) {
        this.opts.store.touchDocument(path, mtime, size);
        this.summary.unchanged++;
        return;
      }
      const read = await readTranscript(path, this.opts.config.daemon.maxLineBytes, this.reader, (this.opts.now ?? Date.now)());
      this.warn('malformed_lines', read.malformedLines);
      this.warn('overlong_lines', read.overlongLines);
      const sessionId = path.split(sep).pop()!.replace(/\.jsonl$/, '');
      // Lineage: a message another document already holds (a resumed / forked copy) is chunked once.
      const lineage = splitCopies(sessionId, read, this.heldElsewhere(path, read.uuids));
      for (const u of lineage.messages.uuids) if (!this.claimed.has(u)) this.claimed.set(u, path);
      this.summary.copied_exchanges += lineage.copiedExchanges;
      const t = chunkTranscript(lineage.exchanges, cfg, episodesOf(lineage.steps), { sessionId, at: mtime });
      const title = t.title || sessionId;
      const chunks: ChunkInput[] = t.chunks.map((c) => ({
        heading: c.heading,
        text: c.text,
        createdAt: Number.isFinite(c.createdAt) && c.createdAt > 0 ? c.createdAt : mtime,
        hasError: c.hasError,
        resolved: c.resolved,
        ...(c.episode ? { episode: c.episode } : {}),
      }));
      // An open last turn was left out: stale, so the next run reads the file again.
      const stored = read.openFrom === null ? hash : STALE_HASH_PREFIX + hash;
      if (stored === oldHash) {
        this.opts.store.touchDocument(path, mtime, size);
        this.summary.unchanged++;
        return;
      }
      this.queue({ sourceId: source.id, path, hash: stored, mtime, size, title, messages: lineage.messages }, chunks);
    } catch (e) {
      this.problem({ path, reason: 'unreadable', message: `cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): skipped` });
    }
  }

  /** Message uuids whose text another document holds: in the store, or claimed earlier in
   *  this run by a document not yet written (one batch can hold a session and its copy). */
  private heldElsewhere(path: string, uuids: string[]): Set<string> {
    const held = this.opts.store.messagesHeldElsewhere?.(path, uuids) ?? new Set<string>();
    for (const u of uuids) {
      const by = this.claimed.get(u);
      if (by !== undefined && by !== path) held.add(u);
    }
    return held;
  }

  /** Remove documents of `source` whose files are gone (never under a folder we could not read). */
  private removeDeleted(source: SourceRecord, problems: Problem[], seen: Set<string>): void {
    if (problems.some((p) => p.path === source.path && (p.reason === 'missing_source' || p.reason === 'unreadable'))) return;
    const blind = problems.filter((p) => p.reason === 'unreadable').map((p) => p.path + sep);
    for (const doc of this.opts.store.listDocuments(source.id)) {
      if (seen.has(doc.path) || blind.some((b) => doc.path.startsWith(b))) continue;
      if (this.opts.store.removeDocument(doc.path)) this.summary.removed++;
    }
  }
}

/** Index the given (default: all) sources incrementally; returns the summary. */
export function runIndex(opts: IndexOptions): Promise<IndexSummary> {
  return new IndexRun(opts).run();
}

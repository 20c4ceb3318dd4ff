/**
 * `active-brain store push`: copy the local SQLite store (store/sqlite-export.ts) into the
 * team store through the StoreWriter interface (the writer role's PostgreSQL writer), with
 * one audience for every pushed source. Regions keep their name and scope, sources their path
 * and kind; a document whose content hash the team store already holds is skipped, a changed
 * one is replaced (one transaction per document, the stored vectors copied, never
 * re-embedded), one gone from the local source is removed from the team store. A team store
 * built with another embedding model is refused before anything is written. No SQL here.
 * A local store not redacted with the current rules (indexed before redaction, or with other
 * redact.* config) is refused before anything is written: its derived fields (error-signature
 * heads and words, lower-cased and with numbers replaced) cannot be redacted after the fact —
 * `active-brain index` re-reads the sources and redacts them first. Every chunk and title still
 * goes through the redactor on the way (store/redact-chunks.ts; `scrubbed` counts chunks it
 * changed: 0 for a store the indexer redacted).
 */
import { StoreError } from './errors.js';
import type { StoreWriter } from './types.js';
import type { SqliteExport } from './sqlite-export.js';
import type { ProgressSink } from '../shared/progress-sink.js';
import { createRedactor, type Redactor } from '../shared/redact.js';
import { redactChunk } from './redact-chunks.js';

export interface PushCounts {
  regions: number;
  sources: number;
  /** Documents written (new in the team store). */
  added: number;
  /** Documents whose content changed: replaced. */
  replaced: number;
  unchanged: number;
  /** Documents of pushed sources the local store no longer has. */
  removed: number;
  /** Chunks in the documents written. */
  chunks: number;
  /** Sources already in the team store under another audience: moved to this one, rows and all. */
  moved: number;
  /** Chunks of the written documents that held a secret: redacted before they were written. */
  scrubbed: number;
}

export interface PushPlanItem {
  sourcePath: string;
  docPath: string;
  action: 'add' | 'replace' | 'skip';
}

/** Push every source of `local` into `target` with `audience`. */
export function pushStore(local: SqliteExport, target: StoreWriter, audience: string, progress?: ProgressSink, redactor: Redactor = createRedactor()): PushCounts {
  const counts: PushCounts = { regions: 0, sources: 0, added: 0, replaced: 0, unchanged: 0, removed: 0, chunks: 0, moved: 0, scrubbed: 0 };
  const sources = local.sources();
  const localModel = local.model();
  const docs = sources.reduce((n, s) => n + s.documents.length, 0);
  const targetModel = target.model();
  if (docs > 0 && !localModel) throw new StoreError('STORE_UNREADABLE', `the local store ${local.path} holds documents but no embedding model: run \`active-brain index --rebuild\`, then push again`);
  if (localModel && targetModel && (targetModel.model !== localModel.model || targetModel.dim !== localModel.dim)) {
    throw new StoreError('MODEL_MISMATCH', `refusing to push: the team store holds vectors of ${targetModel.model} (${targetModel.dim} dimensions), the local store of ${localModel.model} (${localModel.dim}); vectors of two models cannot be searched together: index locally with the team's model (embed.model) and \`active-brain index --rebuild\`, or push into another schema`);
  }
  if (docs > 0 && local.redaction() !== redactor.fingerprint) {
    throw new StoreError('UNSCRUBBED', `refusing to push: the local store ${local.path} was ${local.redaction() ? 'redacted with other rules (redact.* config or an older active-brain)' : 'indexed before secrets were redacted'}: run \`active-brain index\` (it re-reads and redacts every document, reusing unchanged vectors), then push again`);
  }
  if (localModel && !targetModel && docs > 0) target.setModel(localModel.model, localModel.dim);
  // A team store not redacted with these rules (pushed before redaction, or other rules): every
  // document is written again, redacted, even where its content hash is unchanged.
  const rescrub = docs > 0 && target.redaction() !== redactor.fingerprint;
  const regions = new Map(target.regions().map((r) => [r.name, r.scope]));
  progress?.start(docs);
  let done = 0;
  for (const s of sources) {
    if (regions.get(s.region) !== s.scope) {
      target.ensureRegion(s.region, s.scope);
      regions.set(s.region, s.scope);
      counts.regions++;
    }
    const src = target.addSource(s.region, s.path, s.kind, audience);
    counts.sources++;
    if (src.audienceChanged) counts.moved++;
    const have = new Map(target.listDocuments(src.id).map((d) => [d.path, d]));
    for (const d of s.documents) {
      const old = have.get(d.path);
      have.delete(d.path);
      if (old && old.hash === d.hash && !rescrub) {
        if (old.mtime !== d.mtime || old.size !== d.size) target.touchDocument(d.path, d.mtime, d.size);
        counts.unchanged++;
      } else {
        const doc = local.document(d.path);
        if (!doc) continue; // removed locally since sources() listed it
        const chunks = doc.chunks.map((c) => redactChunk(redactor, c)); // redact:push
        counts.scrubbed += chunks.filter((c, i) => c.text !== doc.chunks[i].text || c.heading !== doc.chunks[i].heading || c.episode?.fix !== doc.chunks[i].episode?.fix).length;
        target.replaceDocument({ sourceId: src.id, path: d.path, hash: d.hash, mtime: d.mtime, size: d.size, title: redactor.redact(doc.title) }, chunks, doc.vectors);
        if (old) counts.replaced++;
        else counts.added++;
        counts.chunks += doc.chunks.length;
      }
      progress?.update(++done, counts.chunks);
    }
    for (const gone of have.keys()) if (target.removeDocument(gone)) counts.removed++;
  }
  progress?.done();
  if (rescrub) target.setRedaction(redactor.fingerprint);
  return counts;
}

/** True when the push wrote nothing: no document added, replaced or removed, no source moved to another audience. */
export function pushWroteNothing(c: PushCounts): boolean {
  return c.added + c.replaced + c.removed + c.moved === 0;
}

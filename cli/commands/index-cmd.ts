/**
 * `active-brain index add <path> --region <name> [--kind notes|transcripts] [--scope …]`
 * registers a source (notes folder or Claude Code transcript root) and indexes it;
 * `active-brain index [--rebuild]` re-indexes every registered source incrementally.
 *
 * Validates arguments, takes the indexer lock (indexer/lock.ts), records the run
 * (daemon/index-runs.ts), opens the store for writing (the only writer), loads the embedder,
 * runs indexer/indexer.ts with a progress bar on a TTY, prints a summary (one JSON object
 * with --json). Skipped files are reported on stderr as they happen (paths and reasons only).
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import { syncFixesFrom } from '../../daemon/fixes-writer.js';
import { fixesDir } from '../../shared/paths.js';
import { AUDIENCE_PATTERN } from '../../store/pg-schema.js';
import { storeBackend, writerStoreLocation } from '../../store/location.js';
import { damagedStoreFix, quickCheck, quickCheckSummary } from '../../store/quick-check.js';
import type { SourceKind, SourceRecord, StoreWriter } from '../../store/types.js';
import { createEmbedder, resolveModel } from '../../embed/embedder.js';
import type { Embedder } from '../../embed/types.js';
import { acquireIndexLock, IndexerBusyError } from '../../indexer/lock.js';
import { runIndex, type IndexSummary } from '../../indexer/indexer.js';
import { recordBusyRun, startIndexRun, type RunOutcome } from '../../daemon/index-runs.js';
import { createProgress, type ProgressSink } from '../../indexer/progress.js';
import { listSourceFiles, type Problem } from '../../indexer/files.js';
import { isAppError } from '../../shared/errors.js';

const REGION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const KINDS: readonly SourceKind[] = ['notes', 'transcripts'];

const HELP = `usage: active-brain index add <path> --region <name> [--kind notes|transcripts]
                         [--scope global|project:<glob>] [--audience team|user:<name>|project:<glob>] [--json]
       active-brain index [--rebuild] [--json]

index add   registers <path> under region <name> and indexes it (a folder that holds nothing
            to index yet is registered all the same, and says so: the next index run and the
            schedule pick up what appears there).
            --kind notes        a folder of .md / .markdown / .txt notes (or one file)
            --kind transcripts  a Claude Code projects root (<root>/<project>/<session>.jsonl,
                                subagent transcripts skipped), e.g. ~/.claude/projects
            Without --kind it is guessed: transcripts when the folder holds .jsonl
            transcripts and no notes, else notes.
            --scope global (default for a new region) or project:<glob>: the region is
            only searched for sessions whose cwd matches <glob> (e.g. project:~/work/api/**).
            An existing region keeps its scope unless --scope is given.
            --audience (team store only, store.url / store.writerUrl = postgres://): who may
            read the source — team (default), user:<name> (that user's reader only) or
            project:<glob>; the database enforces it (row-level security, docs/STORE.md).
index       re-indexes every registered source: unchanged files are skipped (size+mtime,
            then content hash), changed ones re-indexed, deleted ones removed.
            --rebuild drops all chunks and vectors and re-embeds everything: the fix when
            the store was built with another embedding model.

Unreadable, binary (NUL bytes), oversized (indexer.maxFileBytes) or non-UTF-8 files, and
missing or empty sources, are skipped with a message and counted; indexing goes on and
nothing already indexed is lost. Files with a few invalid UTF-8 bytes are indexed with
U+FFFD replacements (counted under warnings.invalid_utf8).
Only one indexer runs at a time; a second one waits indexer.lockWaitMs, then refuses
(exit 1, recorded as "busy"). Every run is recorded in $ACTIVE_BRAIN_HOME/logs/index.jsonl:
start, end, result, exit code, counts and the store's fingerprint before and after (what
\`soak report\` uses to tell the indexer's writes from anyone else's; \`service status\`
shows the last run). \`active-brain service install\` runs this every
indexer.intervalMinutes (default 15). After a run the hook's Past-fix files
($ACTIVE_BRAIN_HOME/fixes) follow the store (SQLite stores; a team store is followed by the
daemon): the Past fix at a failure needs no daemon.

--json prints one object: {"sources","files_seen","indexed","unchanged","removed",
"skipped":{reason:count},"warnings":{…},"chunks_added","chunks_embedded","episodes_added",
"chunks_total","seconds","chunks_per_s","problems":[{path,reason,message}],
"redaction":{"rescrubbed","scrubbed","findings"},"episodes_recut"} (plus "region", "source", "registered": true
for add). Secrets (API keys, tokens, private keys, passwords…: docs/REDACTION.md) are replaced
by markers such as ‹secret:github-token› before anything is chunked, embedded or stored. A
store indexed before redaction, or with other redact.* config, has every document re-read and
redacted by the next run (rescrubbed; unchanged chunks keep their vectors). Likewise a store
whose error episodes were cut by an older active-brain's rules is re-read once, so their
signatures match what the hook signs now (episodes_recut).
chunks_embedded counts the chunks that needed the model; a re-indexed
file reuses the stored vectors of its unchanged chunks. Transcripts also give error
episodes (a failed tool call and what fixed it: episodes_added), found by error signature.
Progress is drawn on stderr only when it is a terminal.
With embedding.url (an embedding server), a batch the server refuses with an HTTP error
leaves its chunks out (warnings.chunks_not_embedded) and indexing goes on; a server that is
down, too slow (embedding.timeoutMs), refuses the key or answers garbage stops the run.
Exit codes: 0 done (skipped bad input is reported, not a failure) · 1 some documents or
chunks could not be embedded or stored, another indexer is running, or no sources yet ·
2 bad arguments or config · 3 model, embedding server or store unavailable, or model
mismatch (--rebuild).`;

/** `global` or `project:<glob>` with a non-empty glob; returns an error message or null. */
export function scopeProblem(scope: string): string | null {
  if (scope === 'global') return null;
  if (scope.startsWith('project:') && scope.slice('project:'.length).trim() !== '') return null;
  return `--scope "${scope}" is not valid: use "global" or "project:<glob>" (e.g. project:~/work/api/**)`;
}

/** Guess a source's kind from what it holds. */
export function guessKind(path: string): SourceKind {
  if (statSync(path).isFile()) return path.endsWith('.jsonl') ? 'transcripts' : 'notes';
  const notes = listSourceFiles(path, 'notes').files.length;
  const transcripts = listSourceFiles(path, 'transcripts').files.length;
  return notes === 0 && transcripts > 0 ? 'transcripts' : 'notes';
}

function summaryLine(s: IndexSummary): string {
  const skipped = Object.entries(s.skipped);
  const nSkipped = skipped.reduce((n, [, c]) => n + (c ?? 0), 0);
  const parts = [
    `indexed ${s.indexed} file(s) (${s.chunks_added} chunks${s.chunks_added ? `, ${s.chunks_embedded} embedded` : ''}${s.episodes_added ? `, ${s.episodes_added} error episodes` : ''})`,
    `${s.unchanged} unchanged`,
    `${s.removed} removed`,
  ];
  if (nSkipped) parts.push(`skipped ${nSkipped} (${skipped.map(([r, c]) => `${r} ${c}`).join(', ')})`);
  const warnings = Object.entries(s.warnings);
  if (warnings.length) parts.push(`warnings: ${warnings.map(([w, c]) => `${w} ${c}`).join(', ')}`);
  if (s.episodes_recut) parts.push('error episodes re-cut with this version\'s rules');
  if (s.redaction.rescrubbed) parts.push(s.redaction.scrubbed ? 'every document re-redacted' : s.redaction.findings ? `${s.redaction.findings} secret finding(s) still stored (\`active-brain store scan\`)` : 're-redaction pending: run `active-brain index` without a source');
  parts.push(`${s.chunks_total} chunks in store`);
  parts.push(`${s.seconds} s${s.chunks_added ? ` (${s.chunks_per_s} chunks/s)` : ''}`);
  return parts.join(' · ');
}

export interface IndexJob {
  config: Config;
  /** Register this source first, then index only it. */
  add?: { path: string; region: string; kind: SourceKind; scope: string | null; audience: string };
  rebuild: boolean;
}

export interface IndexJobResult {
  summary: IndexSummary;
  /** The source registered by `add` (null for a re-index of every source). */
  added: SourceRecord | null;
  scope: string | null;
  exit: number;
}

/** Skipped files that count as a failed run (the rest is bad input, reported, not a failure). */
const FAILED_SKIPS = ['embed_failed', 'store_failed'] as const;

function runCounts(s: IndexSummary) {
  const skipped = Object.values(s.skipped).reduce((n, c) => n + (c ?? 0), 0);
  return { sources: s.sources, files_seen: s.files_seen, indexed: s.indexed, unchanged: s.unchanged, removed: s.removed, skipped, chunks_added: s.chunks_added, seconds: s.seconds };
}

/**
 * One index run: takes the indexer lock, records the run in logs/index.jsonl (daemon/index-runs.ts:
 * the store's fingerprint before and after, result, counts, exit code — so `soak report` can
 * tell the indexer's writes from anyone else's), opens the store for writing, optionally
 * registers a source, indexes. Throws as before (busy, no sources, model, store); every run
 * that got the lock is recorded whatever its end. Used by `index` and `setup`.
 */
export async function runIndexJob(
  job: IndexJob,
  io: { progress?: ProgressSink; onProblem?: (p: Problem) => void; embedder?: Embedder } = {},
): Promise<IndexJobResult> {
  const { config } = job;
  const storePath = writerStoreLocation(config);
  let lock;
  try {
    lock = await acquireIndexLock(config.indexer.lockWaitMs);
  } catch (e) {
    if (e instanceof IndexerBusyError) recordBusyRun(storePath, e.message, { exit: e.exitCode });
    throw e;
  }
  let store: StoreWriter | null = null;
  const run = startIndexRun(storePath, { onSignal: () => store?.close() });
  let outcome: RunOutcome = { result: 'error', exit: EXIT.FAIL };
  try {
    refuseDamagedStore(storePath);
    store = openStoreWriter(storePath);
    let sources: SourceRecord[] | undefined;
    let added: SourceRecord | null = null;
    let scope: string | null = null;
    if (job.add) {
      const { region, kind } = job.add;
      scope = job.add.scope ?? store.regions().find((r) => r.name === region)?.scope ?? 'global';
      store.ensureRegion(region, scope);
      added = store.addSource(region, job.add.path, kind, job.add.audience);
      sources = [added];
    } else if (store.listSources().length === 0) {
      throw new UserError('no sources yet: add one with "active-brain index add <path> --region <name>" (e.g. active-brain index add ~/notes --region notes)', EXIT.FAIL);
    }
    // The model is loaded only when something needs embedding: a no-change run stays fast.
    let embedder: Embedder | null = io.embedder ?? null;
    const loader = { modelId: embedder?.modelId ?? resolveModel(config.embedding).modelId, load: async () => (embedder ??= await createEmbedder(config.embedding)) };
    let summary: IndexSummary;
    try {
      summary = await runIndex({ store, embedder: loader, config, sources, rebuild: job.rebuild, progress: io.progress, onProblem: io.onProblem });
    } finally {
      if (embedder !== io.embedder) await (embedder as Embedder | null)?.dispose();
    }
    // Chunks an embedding server refused are left out of their document: the run did not fully hold.
    const notEmbedded = summary.warnings.chunks_not_embedded ?? 0;
    const failed = FAILED_SKIPS.reduce((n, k) => n + (summary.skipped[k] ?? 0), 0) + notEmbedded;
    const exit = failed > 0 ? EXIT.FAIL : EXIT.OK;
    outcome = { result: failed > 0 ? 'failed' : 'ok', exit, counts: runCounts(summary), ...(failed ? { message: `${failed} document(s) or chunk(s) could not be embedded or stored` } : {}) };
    return { summary, added, scope, exit };
  } catch (e) {
    outcome = { result: 'error', exit: isAppError(e) ? e.exitCode : EXIT.FAIL, message: (e as Error).message };
    throw e;
  } finally {
    store?.close();
    // Still under the lock: the hook's fixes files follow what this run left in the store.
    if (outcome.result !== 'error') syncFixesAfterRun(storePath);
    // Still under the lock: the fingerprint after is what this run left.
    run.finish(outcome);
    await lock.release();
  }
}

/** A SQLite store that fails SQLite's quick_check (store/quick-check.ts) is not written into:
 *  a write into damaged pages spreads the damage. The error says what to do (exit 3). A check
 *  that could not finish does not stop the run. */
function refuseDamagedStore(storePath: string): void {
  if (storeBackend(storePath) !== 'sqlite' || !existsSync(storePath)) return;
  const qc = quickCheck(storePath);
  if (qc.state !== 'damaged') return;
  throw new UserError(`the store ${storePath} is damaged (SQLite's quick_check: ${quickCheckSummary(qc)}); index will not write into it. Fix: ${damagedStoreFix(storePath)}.`, EXIT.ENV);
}

/** The hook's fixes files (<home>/fixes) kept in step with the store the run changed: the
 *  Past fix at a failure needs no daemon. A failure here is reported, never fatal to the run
 *  (the daemon, when it runs, syncs them again). */
function syncFixesAfterRun(storePath: string): void {
  // A team store is followed by the daemon (its change stamp): this run holds a writer URL,
  // and the readers' view of it is theirs (row-level security).
  if (storeBackend(storePath) !== 'sqlite') return;
  try {
    const reader = openStoreReader(storePath);
    try {
      syncFixesFrom(reader, fixesDir(process.env), reader.changeStamp());
    } finally {
      reader.close();
    }
  } catch (e) {
    process.stderr.write(`warning: the Past fix files in ${fixesDir(process.env)} were not updated (${(e as Error).message}); the daemon updates them when it runs, or run "active-brain index" again\n`);
  }
}

/** What `index add` did with the path, said plainly: registered (and indexed), or registered
 *  while it holds nothing to index yet — never a "nothing to index" that leaves it unclear. */
export function addedLine(added: SourceRecord, scope: string | null, s: IndexSummary): string {
  const head = `registered ${added.path} (${added.kind}) in region "${added.region}" (${scope})`;
  if (s.files_seen > 0) return head;
  const what = added.kind === 'notes' ? '.md, .markdown or .txt notes' : 'transcripts (<project>/<session>.jsonl)';
  return `${head}: it holds no ${what} yet, so nothing was indexed; \`active-brain index\` (and the schedule) indexes what appears there. Not the folder you meant? Check the path${added.kind === 'transcripts' ? '' : ', or --kind transcripts'}.`;
}

async function execute(job: IndexJob & { json: boolean }): Promise<number> {
  const r = await runIndexJob(job, {
    progress: job.json ? undefined : createProgress(),
    // An empty new source is said once, in the registered line below, not as a skip.
    onProblem: job.json ? undefined : (p) => {
      if (!(job.add && p.reason === 'empty_source')) process.stderr.write(`active-brain: ${p.message}\n`);
    },
  });
  const { summary, added, scope } = r;
  if (job.json) printJson(added ? { region: added.region, scope, source: added.path, kind: added.kind, audience: job.add!.audience, registered: true, ...summary } : summary);
  else {
    if (added) process.stdout.write(addedLine(added, scope, summary) + '\n');
    process.stdout.write(summaryLine(summary) + '\n');
  }
  const notEmbedded = summary.warnings.chunks_not_embedded ?? 0;
  if (notEmbedded > 0 && !job.json) {
    process.stderr.write(
      `active-brain: ${notEmbedded} chunk(s) were left out: the embedding server refused their batch (see its log; llama.cpp refuses an input over its batch size, -b/-ub). ` +
        'Fix the server or lower embedding.batchSize / indexer.maxChunkChars, then `active-brain index --rebuild`.\n',
    );
  }
  return r.exit;
}

function parseAdd(positionals: string[], values: { region?: string; kind?: string; scope?: string; audience?: string }): NonNullable<IndexJob['add']> {
  if (positionals.length === 0) {
    throw new UserError('index add needs a path: active-brain index add <path> --region <name> (e.g. active-brain index add ~/notes --region notes)', EXIT.USAGE);
  }
  if (positionals.length > 1) {
    throw new UserError(`index add takes one path, got ${positionals.length} (${positionals.join(' ')}): add each source with its own command`, EXIT.USAGE);
  }
  if (!values.region) {
    throw new UserError('index add needs --region <name>: a name for this group of sources (e.g. --region notes)', EXIT.USAGE);
  }
  if (!REGION_NAME.test(values.region)) {
    throw new UserError(`--region "${values.region}" is not valid: use letters, digits, ".", "_" or "-", starting with a letter or digit (e.g. notes, pg-project)`, EXIT.USAGE);
  }
  if (values.kind !== undefined && !KINDS.includes(values.kind as SourceKind)) {
    throw new UserError(`--kind "${values.kind}" is not valid: use notes or transcripts`, EXIT.USAGE);
  }
  if (values.scope !== undefined) {
    const p = scopeProblem(values.scope);
    if (p) throw new UserError(p, EXIT.USAGE);
  }
  if (values.audience !== undefined && !AUDIENCE_PATTERN.test(values.audience)) {
    throw new UserError(`--audience "${values.audience}" is not valid: use team, user:<name> (lower-case, e.g. user:alice) or project:<glob>`, EXIT.USAGE);
  }
  const path = resolve(positionals[0]);
  if (!existsSync(path)) {
    throw new UserError(`${path} does not exist: check the path (nothing was registered)`, EXIT.USAGE);
  }
  const kind = (values.kind as SourceKind | undefined) ?? guessKind(path);
  if (statSync(path).isFile()) {
    const unsupported = listSourceFiles(path, kind).problems.find((p) => p.reason === 'unsupported');
    if (unsupported) throw new UserError(`${unsupported.message.replace(/: skipped$/, '')}: give a folder, or a file of that kind (nothing was registered)`, EXIT.USAGE);
  }
  return { path, region: values.region, kind, scope: values.scope ?? null, audience: values.audience ?? 'team' };
}

export const command: Command = {
  name: 'index',
  summary: 'add a notes/transcripts source, or re-index every source incrementally',
  help: HELP,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, {
      region: { type: 'string' },
      kind: { type: 'string' },
      scope: { type: 'string' },
      audience: { type: 'string' },
      rebuild: { type: 'boolean' },
    });
    const [sub, ...rest] = positionals;
    const { config } = loadConfig({ flags: values.set });
    const json = Boolean(values.json);
    if (sub === 'add') {
      if (values.rebuild) throw new UserError('--rebuild goes with "active-brain index" (all sources), not with "index add"', EXIT.USAGE);
      return execute({ config, json, rebuild: false, add: parseAdd(rest, values) });
    }
    if (sub !== undefined) {
      throw new UserError(`unknown index subcommand "${sub}": use "active-brain index add <path> --region <name>" or "active-brain index"`, EXIT.USAGE);
    }
    for (const flag of ['region', 'kind', 'scope'] as const) {
      if (values[flag] !== undefined) throw new UserError(`--${flag} goes with "active-brain index add <path>"`, EXIT.USAGE);
    }
    return execute({ config, json, rebuild: Boolean(values.rebuild) });
  },
};

/**
 * `active-brain recall <handle> [--json]`: the full chunk behind an offer's handle, with its
 * source path, region and date. Reads the knowledge store read-only (path from config
 * `store.path`, else <home>/store.sqlite) and appends {ts, handle, via:"cli"} to
 * <home>/logs/recalls.jsonl (shared/recall-log.ts) so the soak report can see recalls.
 * Exit 1 for an unknown handle, 3 when there is no store or it holds no chunks.
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { logRecall } from '../../shared/recall-log.js';
import { openStoreReader, StoreError } from '../../store/sqlite-store.js';
import { storeLocation } from '../../store/location.js';
import type { ChunkRecord, StoreReader } from '../../store/types.js';

function isoDate(ms: number): string {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : String(ms);
}

/** Terminal hygiene for stored text: drop C0/C1 controls (incl. ESC, so no ANSI sequences) but
 *  keep newlines and tabs. */
function printable(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

function human(c: ChunkRecord): string {
  const lines = [
    c.handle,
    `region:  ${c.region} (${c.regionScope})`,
    `source:  ${c.path}`,
    `date:    ${isoDate(c.createdAt).replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}`,
  ];
  if (c.title) lines.push(`title:   ${c.title}`);
  if (c.heading) lines.push(`heading: ${c.heading}`);
  if (c.kind === 'transcripts' && c.hasError) lines.push(`status:  error${c.resolved ? ', later resolved' : ', not resolved in this exchange'}`);
  lines.push('', c.text.trimEnd());
  return printable(lines.join('\n'));
}

export const command: Command = {
  name: 'recall',
  summary: 'the full chunk behind an offer\'s handle',
  help: `usage: active-brain recall <handle> [--json] [--set key.path=value ...]

Prints the chunk an offer pointed at — e.g. active-brain recall notes/pg/pool-timeouts.md#2 —
with its source file, region and date. --json prints one object:
{"handle","region","scope","kind","path","title","heading","date","createdAt","hasError",
"resolved","text"}. Each recall is noted (handle and time only) in
$ACTIVE_BRAIN_HOME/logs/recalls.jsonl.
Exit 1 when the handle is unknown, 2 on a usage error, 3 when there is no knowledge store or it
holds no chunks yet (build one with "active-brain index add <path> --region <name>").`,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, {});
    if (positionals.length !== 1 || !positionals[0].trim()) {
      throw new UserError('recall needs exactly one handle, e.g. active-brain recall notes/pg/pool-timeouts.md#2', EXIT.USAGE);
    }
    const handle = positionals[0].trim();
    const { config } = loadConfig({ flags: values.set });
    const storePath = storeLocation(config);
    let reader: StoreReader;
    try {
      reader = openStoreReader(storePath);
    } catch (e) {
      if (e instanceof StoreError) throw new UserError(e.message, e.exitCode);
      throw e;
    }
    let chunk: ChunkRecord | null;
    let empty: string | null = null;
    try {
      chunk = reader.chunkByHandle(handle);
      if (!chunk && reader.info().chunks === 0) empty = reader.emptyAdvice();
    } finally {
      reader.close();
    }
    if (empty !== null) {
      // A store with nothing in it (for this reader) is "no knowledge store": exit 3 and the next step.
      throw new UserError(empty, EXIT.ENV);
    }
    if (!chunk) {
      throw new UserError(`no chunk with handle "${handle}" in ${storePath}: it may have been re-indexed away; try active-brain search "<words>"`, EXIT.FAIL);
    }
    if (!logRecall(chunk.handle, 'cli')) process.stderr.write('active-brain: note: could not append to logs/recalls.jsonl\n');
    if (values.json) {
      printJson({
        handle: chunk.handle,
        region: chunk.region,
        scope: chunk.regionScope,
        kind: chunk.kind,
        path: chunk.path,
        title: chunk.title,
        heading: chunk.heading,
        date: isoDate(chunk.createdAt),
        createdAt: chunk.createdAt,
        hasError: chunk.hasError,
        resolved: chunk.resolved,
        text: chunk.text,
      });
    } else {
      process.stdout.write(human(chunk) + '\n');
    }
    return EXIT.OK;
  },
};

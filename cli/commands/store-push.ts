/**
 * `active-brain store push --to WRITER_URL [--audience A] [--json]`: copy the local SQLite
 * store (store.path) into the team store on PostgreSQL (store/push.ts), incrementally, every
 * pushed source with audience A (default team). Progress bar on a TTY only.
 */
import { parseFlags, printJson, EXIT, UserError } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { defaultStorePath } from '../../shared/paths.js';
import { StoreError } from '../../store/errors.js';
import { isPostgresUrl, redactUrl } from '../../store/pg-sync.js';
import { AUDIENCE_PATTERN } from '../../store/pg-schema.js';
import { openStoreWriter } from '../../store/sqlite-store.js';
import { SqliteExport } from '../../store/sqlite-export.js';
import { pushStore, pushWroteNothing } from '../../store/push.js';
import { createRedactor } from '../../shared/redact.js';
import type { StoreWriter } from '../../store/types.js';
import { createProgress } from '../../indexer/progress.js';

export const PUSH_HELP = `usage: active-brain store push --to postgres://WRITER@HOST:PORT/DB [--audience A] [--json]

Copies the local knowledge store (store.path, default <home>/store.sqlite) into the team
store: regions keep their name and scope, sources their path and kind, and every pushed
source gets audience A — team (default), user:<name> (that user's reader only) or
project:<glob> (readers granted it: \`active-brain store grant\`). Incremental: a document
the team store holds with the same content hash is skipped; a changed one is replaced (its
vectors copied, not re-embedded); one deleted locally is removed from the team store.
Sources removed locally stay in the team store. A team store built with another embedding
model is refused before anything is written, and so is a local store not redacted with the
current rules (indexed before redaction, or other redact.* config: run \`active-brain index\`
first). Every chunk is redacted on the way too (docs/REDACTION.md); a team store not yet
redacted with these rules gets every document written again.
--to is the writer URL \`active-brain store init\` printed (writerUrl); a reader URL is refused.

--json prints one object: {"to","from","audience","regions","sources","added","replaced",
"unchanged","removed","chunks","moved","scrubbed","wrote"} (to without its password; moved =
sources already there under another audience, moved to this one with their rows; scrubbed =
chunks that held a secret, redacted before they were written).
Exit 0 done (also when nothing changed) · 2 usage (bad URL, reader URL, bad audience,
source registered in another region) · 3 local store missing or unreadable, server
unreachable, login refused, model mismatch, local store not redacted.`;

export async function runPush(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { to: { type: 'string' }, audience: { type: 'string' } });
  if (values.help) {
    process.stdout.write(PUSH_HELP + '\n');
    return EXIT.OK;
  }
  if (positionals.length) throw new UserError(`store push takes no arguments besides flags (got ${positionals.join(' ')})`, EXIT.USAGE);
  const to = values.to;
  if (!to || !isPostgresUrl(to)) throw new UserError('store push needs --to postgres://USER:PASSWORD@HOST:PORT/DATABASE: the writer URL `active-brain store init` printed (writerUrl)', EXIT.USAGE);
  const audience = values.audience ?? 'team';
  if (!AUDIENCE_PATTERN.test(audience)) throw new UserError(`--audience "${audience}" is not valid: use team, user:<name> (lower-case) or project:<glob>`, EXIT.USAGE);
  const { config } = loadConfig({ flags: values.set });
  const from = config.store.path ?? defaultStorePath();
  let local: SqliteExport;
  try {
    local = SqliteExport.open(from);
  } catch (e) {
    throw asUserError(e);
  }
  let target: StoreWriter | null = null;
  try {
    try {
      target = openStoreWriter(to);
    } catch (e) {
      if (e instanceof StoreError && /cannot write the team store/.test(e.message)) {
        throw new UserError(`store push: the role in ${redactUrl(to)} cannot write the team store: give --to the writer URL \`active-brain store init\` printed (writerUrl), not a reader URL`, EXIT.USAGE);
      }
      throw e;
    }
    const counts = pushStore(local, target, audience, values.json ? undefined : createProgress(), createRedactor(config.redact));
    const wrote = !pushWroteNothing(counts);
    const out = { to: redactUrl(to), from, audience, ...counts, wrote };
    if (values.json) printJson(out);
    else if (!wrote) process.stdout.write(`nothing to push: the team store at ${out.to} already holds the ${counts.unchanged} document(s) of ${from} (their sources' audience: ${audience})\n`);
    else {
      const moved = counts.moved ? `; ${counts.moved} source(s) moved to audience ${audience} with their rows` : '';
      process.stdout.write(`pushed ${from} to ${out.to} (audience ${audience}): ${counts.added} added, ${counts.replaced} replaced, ${counts.removed} removed, ${counts.unchanged} unchanged; ${counts.chunks} chunk(s) written, vectors copied${moved}\n`);
    }
    return EXIT.OK;
  } catch (e) {
    throw asUserError(e);
  } finally {
    target?.close();
    local.close();
  }
}

function asUserError(e: unknown): unknown {
  if (e instanceof StoreError) return new UserError(e.message, e.exitCode);
  return e;
}

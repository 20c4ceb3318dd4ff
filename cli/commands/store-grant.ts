/**
 * `active-brain store grant|revoke --url ADMIN_URL (--user NAME | --team) --audience A
 * [--schema S] [--json]`: let a reader see sources of audience A (project:<glob>, or another
 * user's user:<name>) or take that back (store/pg-schema.ts grantAudience). The administrator
 * URL is used once and never stored; the reader's URL and password do not change.
 */
import { parseFlags, printJson, EXIT, UserError } from '../command.js';
import { StoreError } from '../../store/errors.js';
import { PgSyncConnection, isPostgresUrl, redactUrl } from '../../store/pg-sync.js';
import { DEFAULT_PG_SCHEMA, grantAudience } from '../../store/pg-schema.js';
import { connectPg, pgConnectError } from '../../store/pg-common.js';

export const GRANT_HELP = `usage: active-brain store grant  --url postgres://ADMIN@HOST:PORT/DB (--user NAME | --team)
                               --audience project:<glob>|user:<name> [--schema NAME] [--json]
       active-brain store revoke --url … (--user NAME | --team) --audience A [--schema NAME] [--json]

grant lets reader NAME (the role store init --user NAME created; --team: the team reader)
see every source pushed or indexed with audience A, from its next query on (no new
password, no restart). revoke takes it back. Every reader always sees audience team, and
NAME's reader user:NAME; those cannot be revoked. Granting twice, or revoking what was
never granted, changes nothing and says so. Re-running store init keeps these grants.
The URL must be the administrator's (store init's --url): it is not stored anywhere.

--json prints one object: {"schema","role","audience","action":"grant"|"revoke",
"changed":true|false,"audiences":[…the role's audiences afterwards]}.
Exit 0 done (also when nothing changed) · 2 usage (bad audience, unknown reader) ·
3 server unreachable, login refused, no store in that schema, too few rights.`;

export async function runGrant(argv: string[], action: 'grant' | 'revoke'): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    url: { type: 'string' }, user: { type: 'string' }, team: { type: 'boolean' }, audience: { type: 'string' }, schema: { type: 'string' },
  });
  if (values.help) {
    process.stdout.write(GRANT_HELP + '\n');
    return EXIT.OK;
  }
  if (positionals.length) throw new UserError(`store ${action} takes no arguments besides flags (got ${positionals.join(' ')})`, EXIT.USAGE);
  const url = values.url;
  if (!url || !isPostgresUrl(url)) throw new UserError(`store ${action} needs --url postgres://USER:PASSWORD@HOST:PORT/DATABASE (the administrator URL store init used)`, EXIT.USAGE);
  if (!!values.user === !!values.team) throw new UserError(`store ${action} needs exactly one of --user NAME (a reader store init created with --user NAME) or --team (the team reader)`, EXIT.USAGE);
  if (!values.audience) throw new UserError(`store ${action} needs --audience project:<glob> or user:<name>`, EXIT.USAGE);
  const schema = values.schema ?? DEFAULT_PG_SCHEMA;
  let db: PgSyncConnection;
  try {
    db = connectPg(url);
  } catch (e) {
    throw new UserError((e as Error).message, EXIT.ENV);
  }
  try {
    const r = grantAudience(db, schema, values.user ?? null, values.audience, action === 'revoke');
    const out = { schema, role: r.role, audience: values.audience, action, changed: r.changed, audiences: r.audiences };
    if (values.json) printJson(out);
    else {
      const what = action === 'grant'
        ? (r.changed ? `granted ${out.audience} to ${r.role}` : `${r.role} already reads ${out.audience}: nothing changed`)
        : (r.changed ? `revoked ${out.audience} from ${r.role}` : `${r.role} did not read ${out.audience}: nothing changed`);
      process.stdout.write(`${what} (schema ${schema} of ${redactUrl(url)}); it reads: ${r.audiences.join(', ')}\n`);
    }
    return EXIT.OK;
  } catch (e) {
    if (e instanceof StoreError) throw new UserError(e.message, e.exitCode);
    if ((e as { code?: string }).code === '42501') throw new UserError(`store ${action}: ${redactUrl(url)} may not change the reader grants (${(e as Error).message}): use the administrator URL store init used`, EXIT.ENV);
    throw new UserError(pgConnectError(url, e).message, EXIT.ENV);
  } finally {
    db.close();
  }
}

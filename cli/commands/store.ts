/**
 * `active-brain store init --url URL [--schema NAME] [--user NAME ...] [--json]`: create or
 * migrate the team store on PostgreSQL (store/pg-schema.ts) through an administrator's URL,
 * create its writer role and reader roles (the team's, and one per --user) with fresh
 * passwords, and print their URLs. `store migrate --url URL [--schema NAME] [--json]`: only the
 * schema migrations, roles and passwords untouched (after an upgrade). The administrator URL
 * is used once and never stored. push / grant / revoke live in their own modules.
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { StoreError } from '../../store/errors.js';
import { PgSyncConnection, isPostgresUrl, redactUrl } from '../../store/pg-sync.js';
import { DEFAULT_PG_SCHEMA, PG_SCHEMA_VERSION, initPgStore, migratePgStore, urlWithRole } from '../../store/pg-schema.js';
import { connectPg, pgConnectError } from '../../store/pg-common.js';
import { PUSH_HELP, runPush } from './store-push.js';
import { GRANT_HELP, runGrant } from './store-grant.js';
import { SCAN_HELP, runScan } from './store-scan.js';

const INIT_HELP = `usage: active-brain store init --url postgres://ADMIN@HOST:PORT/DB [--schema NAME]
                              [--user NAME ...] [--json]

Creates (or migrates) the team store in schema NAME (default ${DEFAULT_PG_SCHEMA}) of the
database: regions, sources, documents, chunks (full text as tsvector and vectors, both
searched in each reader's memory), episodes, aliases, meta, with row-level
security by audience. Creates the roles NAME_writer (the indexer) and NAME_reader (the
team: sees audience team) and, per --user alice, NAME_reader_alice (team + user:alice).
Readers have SELECT only and default_transaction_read_only. Re-running is safe: it
migrates, and issues new passwords (old URLs stop working; to migrate only, use store migrate).
The URL must be a role that may create roles and schemas (e.g. the database owner with
CREATEROLE); it is not stored anywhere.

Then: the indexer sets store.writerUrl (or store.url) to writerUrl and runs
\`active-brain index add <path> --region <name> --audience team|user:<name>\`; each user's
daemon, search and recall set store.url (or ACTIVE_BRAIN_STORE_URL) to their reader URL.

--json prints one object: {"url","readerUrl","writerUrl","schema","vectors":"in-memory",
"users":{"<name>":"<reader URL>"}} (url without its password; the others carry theirs).
Exit 0 done · 2 usage · 3 server unreachable, login refused or too few rights.`;

const MIGRATE_HELP = `usage: active-brain store migrate --url postgres://ADMIN@HOST:PORT/DB [--schema NAME] [--json]

Brings an existing team store's schema to version ${PG_SCHEMA_VERSION} (the one this active-brain reads)
after an upgrade, in one transaction: roles, passwords and grants are not touched, so every
reader and writer URL keeps working. Readers and writers refuse an older schema and name
this command. Nothing to do → says so (exit 0).

--json prints {"schema","from","to","migrated"}.
Exit 0 done · 2 usage, or a URL that is not the schema owner's or a superuser's (a reader or
writer URL) · 3 no store in that schema (run store init), schema newer than this build
(upgrade active-brain), server unreachable or login refused.`;

const HELP = `${INIT_HELP}\n\n${MIGRATE_HELP}\n\n${PUSH_HELP}\n\n${GRANT_HELP}\n\n${SCAN_HELP}`;
const SUBCOMMANDS = ['init', 'migrate', 'push', 'grant', 'revoke', 'scan'] as const;

export const command: Command = {
  name: 'store',
  summary: 'the team store on PostgreSQL: store init, migrate, push (local store into it), grant / revoke audiences; store scan: secrets in any store',
  help: HELP,
  ownHelp: true,
  async run(argv) {
    const sub0 = argv.find((a) => !a.startsWith('-'));
    if (sub0 === 'push') return runPush(argv.filter((a) => a !== sub0));
    if (sub0 === 'scan') return runScan(argv.filter((a) => a !== sub0));
    if (sub0 === 'grant' || sub0 === 'revoke') return runGrant(argv.filter((a) => a !== sub0), sub0);
    if (sub0 === undefined && argv.some((a) => a === '--help' || a === '-h')) {
      process.stdout.write(HELP + '\n');
      return EXIT.OK;
    }
    const { values, positionals } = parseFlags(argv, {
      url: { type: 'string' },
      schema: { type: 'string' },
      user: { type: 'string', multiple: true },
    });
    const [sub, ...rest] = positionals;
    if (sub === 'migrate') return runMigrate(values, rest);
    if (sub !== 'init') throw new UserError(`${sub ? `unknown store command "${sub}"` : 'store needs a command'}: use one of ${SUBCOMMANDS.join(', ')} (\`active-brain store --help\`)`, EXIT.USAGE);
    if (values.help) {
      process.stdout.write(INIT_HELP + '\n');
      return EXIT.OK;
    }
    const schema = values.schema ?? DEFAULT_PG_SCHEMA;
    const users = [...new Set(values.user ?? [])];
    const { url, db } = adminConnection('init', values.url, rest);
    try {
      const r = initPgStore(db, schema, users);
      const [team, ...perUser] = r.roles.readers;
      const out = {
        url: redactUrl(url),
        readerUrl: urlWithRole(url, team.name, team.password),
        writerUrl: urlWithRole(url, r.roles.writer.name, r.roles.writer.password),
        schema: r.schema,
        vectors: 'in-memory' as const,
        users: Object.fromEntries(perUser.map((x) => [x.user!, urlWithRole(url, x.name, x.password)])),
      };
      if (values.json) printJson(out);
      else {
        const lines = [`team store ready in schema ${out.schema} of ${out.url} (vectors: in-memory)`, `writer (indexer):  ${out.writerUrl}`, `reader (team):     ${out.readerUrl}`];
        for (const [u, v] of Object.entries(out.users)) lines.push(`reader (${u}):${' '.repeat(Math.max(1, 10 - u.length))}${v}`);
        process.stdout.write(lines.join('\n') + '\n');
      }
      return EXIT.OK;
    } catch (e) {
      throw adminFailure(e, url, `store init: ${redactUrl(url)} may not create roles or schemas`, 'use the database owner with CREATEROLE, or a superuser');
    } finally {
      db.close();
    }
  },
};

function runMigrate(values: { url?: string; schema?: string; user?: string[]; help?: boolean; json?: boolean }, rest: string[]): number {
  if (values.help) {
    process.stdout.write(MIGRATE_HELP + '\n');
    return EXIT.OK;
  }
  if (values.user?.length) throw new UserError('store migrate takes no --user (it changes no role): use store init to add readers', EXIT.USAGE);
  const schema = values.schema ?? DEFAULT_PG_SCHEMA;
  const { url, db } = adminConnection('migrate', values.url, rest);
  try {
    const r = migratePgStore(db, schema);
    const out = { schema: r.schema, from: r.from, to: r.to, migrated: r.from !== r.to };
    if (values.json) printJson(out);
    else process.stdout.write(out.migrated ? `team store schema ${out.schema} migrated from version ${out.from} to ${out.to}; roles and passwords unchanged\n` : `team store schema ${out.schema} is at version ${out.to} already: nothing to do\n`);
    return EXIT.OK;
  } catch (e) {
    throw adminFailure(e, url, `store migrate: ${redactUrl(url)} may not change schema ${schema}`, 'use the database owner or a superuser');
  } finally {
    db.close();
  }
}

/** The administrator's connection for store init / migrate: no stray arguments, a postgres URL, connected. */
function adminConnection(sub: 'init' | 'migrate', url: string | undefined, rest: string[]): { url: string; db: PgSyncConnection } {
  if (rest.length) throw new UserError(`store ${sub} takes no arguments besides flags (got ${rest.join(' ')})`, EXIT.USAGE);
  if (!url || !isPostgresUrl(url)) throw new UserError(`store ${sub} needs --url postgres://USER:PASSWORD@HOST:PORT/DATABASE (an administrator of that database)`, EXIT.USAGE);
  try {
    return { url, db: connectPg(url) };
  } catch (e) {
    throw asUserError(e as StoreError);
  }
}

/** A failed init / migrate as the person's error: the store's own message, too few rights (SQLSTATE
 *  42501: `denied` and the fix), or the connection's. */
function adminFailure(e: unknown, url: string, denied: string, fix: string): UserError {
  if (e instanceof StoreError) return asUserError(e);
  if ((e as { code?: string }).code === '42501') return new UserError(`${denied} (${(e as Error).message}): ${fix}`, EXIT.ENV);
  return asUserError(pgConnectError(url, e));
}

function asUserError(e: StoreError): UserError {
  return new UserError(e.message, e.exitCode);
}

/**
 * A real PostgreSQL server for tests and the PostgreSQL bench: Debian's PostgreSQL (initdb + pg_ctl from
 * /usr/lib/postgresql/<v>/bin, installed by .ci/run when absent), run as the unprivileged
 * `postgres` user (the server refuses root) in a temp dir it owns, listening on 127.0.0.1 and
 * a free port, with a socket dir of its own. Start-up is kept fast (fsync off, small buffers).
 * stop() stops the server and removes the dir. No mocks: tests talk to this server over TCP.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where Debian installs the server binaries (newest version first). */
const PG_ROOT = '/usr/lib/postgresql';
/** The OS user the server runs as (Debian's package creates it). */
const PG_OS_USER = 'postgres';
/** The superuser initdb creates, and its password (md5/scram over TCP). */
export const PG_SUPERUSER = 'postgres';
export const PG_SUPERUSER_PASSWORD = 'test-superuser-pw';

export interface TestPostgres {
  port: number;
  dir: string;
  /** Superuser URL of the default database (tests create their own databases). */
  url: string;
  /** A superuser URL for database `db`. */
  urlFor(db: string): string;
  /** Run SQL as the superuser through psql (setup, inspection). */
  psql(sql: string, db?: string): string;
  /** Restart the server (fault tests). */
  restart(): void;
  /** Stop the server, keeping its data (fault tests; start it again with resume()). */
  halt(): void;
  /** Start a halted server again on the same port. */
  resume(): void;
  stop(): void;
}

function pgBin(): string | null {
  if (!existsSync(PG_ROOT)) return null;
  const versions = readdirSync(PG_ROOT).filter((v) => existsSync(join(PG_ROOT, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions.length ? join(PG_ROOT, versions[0], 'bin') : null;
}

/** True when the server binaries and the postgres OS user are here (tests skip with a reason otherwise). */
export function postgresAvailable(): boolean {
  if (!pgBin()) return false;
  try {
    execFileSync('id', [PG_OS_USER], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => resolvePort(port));
    });
  });
}

function asPostgres(bin: string, args: string[]): string {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ['runuser', ['-u', PG_OS_USER, '--', bin, ...args]] : [bin, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface StartOptions {
  /** shared_buffers (default 16MB: fast start-up for tests; the bench gives it more). */
  sharedBuffers?: string;
}

export async function startPostgres(o: StartOptions = {}): Promise<TestPostgres> {
  const bin = pgBin();
  if (!bin) throw new Error('PostgreSQL is not installed: apt-get install postgresql (Debian), or run .ci/run');
  const dir = mkdtempSync(join(tmpdir(), 'ab-pg-'));
  chmodSync(dir, 0o700);
  const uid = Number(execFileSync('id', ['-u', PG_OS_USER], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', PG_OS_USER], { encoding: 'utf8' }).trim());
  if (process.getuid?.() === 0) chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const sock = dir;
  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, PG_SUPERUSER_PASSWORD + '\n', { mode: 0o600 });
  if (process.getuid?.() === 0) chownSync(pwfile, uid, gid);
  asPostgres(join(bin, 'initdb'), ['-D', data, '-U', PG_SUPERUSER, '--pwfile', pwfile, '-A', 'scram-sha-256', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  rmSync(pwfile);
  const port = await freePort();
  const opts = [
    `-p ${port}`, `-k ${sock}`, '-c listen_addresses=127.0.0.1', '-c fsync=off', '-c synchronous_commit=off',
    '-c full_page_writes=off', `-c shared_buffers=${o.sharedBuffers ?? '16MB'}`, '-c max_connections=40',
  ].join(' ');
  const log = join(dir, 'server.log');
  const start = () => asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-o', opts, '-l', log, '-w', '-t', '30', 'start']);
  const stopServer = (mode: string) => asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
  start();
  const urlFor = (db: string) => `postgres://${PG_SUPERUSER}:${PG_SUPERUSER_PASSWORD}@127.0.0.1:${port}/${db}`;
  let stopped = false;
  return {
    port,
    dir,
    url: urlFor('postgres'),
    urlFor,
    psql(sql: string, db = 'postgres') {
      return execFileSync(join(bin, 'psql'), ['-X', '-q', '-t', '-A', '-v', 'ON_ERROR_STOP=1', '-h', '127.0.0.1', '-p', String(port), '-U', PG_SUPERUSER, '-d', db, '-c', sql], {
        encoding: 'utf8', env: { ...process.env, PGPASSWORD: PG_SUPERUSER_PASSWORD },
      });
    },
    restart() {
      stopServer('immediate');
      start();
    },
    halt() {
      stopServer('immediate');
    },
    resume() {
      start();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        stopServer('immediate');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

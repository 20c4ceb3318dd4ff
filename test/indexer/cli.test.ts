/**
 * `active-brain index` as a person or script runs it (real processes, real store, offline
 * model): `index add` then a search through the store reader, argument validation with
 * exit codes, progress silent off a TTY, model mismatch → --rebuild, one indexer at a time
 * (a second one refuses naming the first's pid), and crash safety under SIGKILL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import { acquireIndexLock, IndexerBusyError } from '../../indexer/lock.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { runIndex } from '../../indexer/indexer.js';
import { ConfigSchema } from '../../config/schema.js';
import { pastFixSession } from './transcript-fixture.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');
const tmp = mkdtempSync(join(tmpdir(), 'ab-index-cli-'));
let modelPath: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  modelPath = offlineModelPath();
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

let homeSeq = 0;
function freshHome(): { home: string; env: NodeJS.ProcessEnv } {
  const home = join(tmp, `home${homeSeq++}`);
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_MODEL_PATH: modelPath, CI: 'true' };
  delete env.ACTIVE_BRAIN_STORE;
  return { home, env };
}

function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'index', ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function notesCopy(name: string): string {
  const dir = join(tmp, name);
  cpSync(join(repoRoot, 'test', 'fixtures', 'notes'), dir, { recursive: true });
  return dir;
}

describe('index add → search round trip', () => {
  it('registers and indexes notes and transcripts; the store reader finds them', () => {
    const { home, env } = freshHome();
    const notes = notesCopy('rt-notes');
    const add = cli(env, 'add', notes, '--region', 'notes', '--json');
    expect(add.code).toBe(0);
    expect(add.stdout.trim().split('\n')).toHaveLength(1);
    const s = JSON.parse(add.stdout);
    expect(s).toMatchObject({ region: 'notes', scope: 'global', kind: 'notes', source: notes, sources: 1, files_seen: 3, indexed: 3, skipped: {} });
    expect(s.chunks_added).toBeGreaterThan(0);
    for (const k of ['unchanged', 'removed', 'chunks_total', 'seconds', 'chunks_per_s', 'warnings', 'problems']) expect(s).toHaveProperty(k);

    const projects = join(tmp, 'rt-projects', '-home-dev-api');
    mkdirSync(projects, { recursive: true });
    const session = pastFixSession();
    writeFileSync(join(projects, `${session.sessionId}.jsonl`), session.text());
    const t = cli(env, 'add', join(tmp, 'rt-projects'), '--region', 'sessions', '--scope', 'project:/home/dev/**', '--json');
    expect(t.code).toBe(0);
    expect(JSON.parse(t.stdout)).toMatchObject({ kind: 'transcripts', scope: 'project:/home/dev/**', indexed: 1 });

    const r = openStoreReader(join(home, 'store.sqlite'));
    try {
      const note = r.getChunks(r.keywordSearch('ECONNRESET idle', 3).map((h) => h.chunkId))[0];
      expect(note.path).toBe(join(notes, 'pg', 'pool-timeouts.md'));
      const fix = r.getChunks(r.keywordSearch('ECONNREFUSED', 3).map((h) => h.chunkId))[0];
      expect(fix).toMatchObject({ kind: 'transcripts', hasError: true, resolved: true });
      expect(r.regions().map((g) => [g.name, g.scope])).toEqual(expect.arrayContaining([['notes', 'global'], ['sessions', 'project:/home/dev/**']]));
    } finally {
      r.close();
    }

    const again = cli(env, '--json');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ sources: 2, indexed: 0, unchanged: 4, removed: 0 });

    // human output: a summary line on stdout, no progress bar off a TTY
    const human = cli(env);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/indexed 0 file\(s\) \(0 chunks\) · 4 unchanged · 0 removed · \d+ chunks in store/);
    expect(human.stderr).not.toContain('[#');

    // re-adding the same path to another region is refused, nothing changes
    const conflict = cli(env, 'add', notes, '--region', 'other');
    expect(conflict.code).toBe(2);
    expect(conflict.stderr).toMatch(/already indexed as notes in region "notes"/);
  });

  it('a skipped file is reported on stderr and counted; exit stays 0', () => {
    const { env } = freshHome();
    const notes = notesCopy('skip-notes');
    writeFileSync(join(notes, 'blob.md'), Buffer.from([1, 0, 2, 0]));
    const r = cli(env, 'add', notes, '--region', 'notes');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/active-brain: .*blob\.md looks binary \(NUL bytes\): skipped/);
    expect(r.stdout).toMatch(/skipped 1 \(binary 1\)/);
  });
});

describe('index add of an empty folder', () => {
  it('says it was registered and that nothing was there to index (control: a folder with notes is registered and indexed)', () => {
    const { env } = freshHome();
    const empty = join(tmp, `empty${homeSeq}`);
    mkdirSync(empty);
    const r = cli(env, 'add', empty, '--region', 'later');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`registered ${empty} (notes) in region "later"`);
    expect(r.stdout).toContain('holds no .md, .markdown or .txt notes yet, so nothing was indexed');
    expect(r.stderr).not.toContain('nothing to index there'); // no second, contradicting message
    const j = JSON.parse(cli(env, 'add', empty, '--region', 'later', '--json').stdout);
    expect(j).toMatchObject({ registered: true, source: empty, files_seen: 0 });
    const notes = join(tmp, `notes${homeSeq}`);
    mkdirSync(notes);
    writeFileSync(join(notes, 'a.md'), '# Pool\n\nThe pool throws ECONNRESET when idle connections are reused after the server closed them.\n');
    const ok = cli(env, 'add', notes, '--region', 'notes');
    expect(ok.stdout).toMatch(new RegExp(`^registered ${notes} \\(notes\\) in region "notes" \\(global\\)$`, 'm'));
    expect(ok.stdout).not.toContain('nothing was indexed');
  });
});

describe('argument validation', () => {
  const { env } = freshHome();
  const notes = notesCopy('args-notes');
  const cases: Array<[string[], number, RegExp]> = [
    [['add'], 2, /index add needs a path/],
    [['add', notes], 2, /needs --region <name>/],
    [['add', notes, '--region', 'bad name'], 2, /--region "bad name" is not valid/],
    [['add', notes, '--region', 'n', '--kind', 'pdf'], 2, /--kind "pdf" is not valid: use notes or transcripts/],
    [['add', notes, '--region', 'n', '--scope', 'project:'], 2, /--scope "project:" is not valid/],
    [['add', notes, '--region', 'n', '--scope', 'everywhere'], 2, /use "global" or "project:<glob>"/],
    [['add', join(tmp, 'does-not-exist'), '--region', 'n'], 2, /does not exist: check the path \(nothing was registered\)/],
    [['add', notes, 'second', '--region', 'n'], 2, /takes one path/],
    [['add', join(repoRoot, 'package.json'), '--region', 'n'], 2, /package\.json is not a \.md, \.markdown or \.txt file: give a folder/],
    [['add', join(notes, 'reading-list.txt'), '--region', 'n', '--kind', 'transcripts'], 2, /is not a \.jsonl file/],
    [['add', notes, '--region', 'n', '--rebuild'], 2, /--rebuild goes with "active-brain index"/],
    [['--region', 'n'], 2, /--region goes with "active-brain index add/],
    [['refresh'], 2, /unknown index subcommand "refresh"/],
    [['--bogus'], 2, /Run with --help/],
    [[], 1, /no sources yet: add one with "active-brain index add <path> --region <name>"/],
  ];
  // In-process (the same module the CLI dispatches to): errors carry their exit code.
  it.each(cases)('index %j → exit %i', async (args, code, message) => {
    const saved = { ...process.env };
    Object.assign(process.env, { ACTIVE_BRAIN_HOME: env.ACTIVE_BRAIN_HOME, ACTIVE_BRAIN_MODEL_PATH: modelPath });
    try {
      const { command } = await import('../../cli/commands/index-cmd.js');
      const err = await command.run(args).then(() => null, (e: unknown) => e as { message: string; exitCode: number });
      expect(err).not.toBeNull();
      expect(err!.message).toMatch(message);
      expect(err!.exitCode).toBe(code);
    } finally {
      process.env = saved;
    }
  });

  it('as a process: the message on stderr, the exit code, nothing on stdout', () => {
    const r = cli(env, 'add', join(tmp, 'does-not-exist'), '--region', 'n', '--json');
    expect(r.stderr).toMatch(/^active-brain: .*does-not-exist does not exist: check the path/);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('--help explains both forms', () => {
    const r = cli(env, '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: active-brain index add <path> --region <name>/);
    expect(r.stdout).toContain('--rebuild');
  });
});

describe('model mismatch', () => {
  it('refuses with exit 3 and a --rebuild hint; --rebuild re-embeds', () => {
    const { home, env } = freshHome();
    const notes = notesCopy('mm-notes');
    expect(cli(env, 'add', notes, '--region', 'notes').code).toBe(0);
    const w = openStoreWriter(join(home, 'store.sqlite'));
    w.clearDocuments();
    w.setModel('Xenova/all-MiniLM-L6-v2', 384);
    w.close();
    const r = cli(env);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/store was built with model Xenova\/all-MiniLM-L6-v2 \(dim 384\).*active-brain index --rebuild/);
    const rb = cli(env, '--rebuild', '--json');
    expect(rb.code).toBe(0);
    expect(JSON.parse(rb.stdout)).toMatchObject({ indexed: 3 });
  });
});

function waitFor(cond: () => boolean, ms: number): Promise<void> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const tick = () => {
      if (cond()) resolve();
      else if (Date.now() - t0 > ms) reject(new Error('timed out waiting'));
      else setTimeout(tick, 20);
    };
    tick();
  });
}

function exited(c: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) resolve(c.exitCode);
    else c.once('exit', (code) => resolve(code));
  });
}

/** A corpus big enough that indexing it takes a few seconds. */
function bigCorpus(dir: string, files: number, version: number): void {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < files; i++) {
    const body = Array.from({ length: 3 }, (_, s) => `## Part ${s}\n\nversion${version}marker file ${i} part ${s}: ` + 'lorem ipsum dolor sit amet '.repeat(4)).join('\n\n');
    writeFileSync(join(dir, `n${String(i).padStart(4, '0')}.md`), `# Note ${i}\n\n${body}\n`);
  }
}

describe('one indexer at a time', () => {
  it('a second indexer refuses naming the running one; a dead holder is recovered', async () => {
    const { home, env } = freshHome();
    const notes = notesCopy('lock-notes');
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `
      const { acquireIndexLock } = await import(${JSON.stringify(join(repoRoot, 'dist', 'indexer', 'lock.js'))});
      await acquireIndexLock(0);
      process.stdout.write('locked\\n');
      setInterval(() => {}, 1000);
    `], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(holder);
    await new Promise<void>((resolve) => holder.stdout!.once('data', () => resolve()));

    const r = cli(env, 'add', notes, '--region', 'notes', '--set', 'indexer.lockWaitMs=300');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`another indexer (pid ${holder.pid}) is running`);
    await expect(acquireIndexLock(100, env)).rejects.toBeInstanceOf(IndexerBusyError);
    expect(existsSync(join(home, 'store.sqlite'))).toBe(false); // refused before touching the store

    holder.kill('SIGKILL');
    await exited(holder);
    const ok = cli(env, 'add', notes, '--region', 'notes', '--json', '--set', 'indexer.lockWaitMs=0');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).indexed).toBe(3);
    expect(existsSync(join(home, 'indexer.pid'))).toBe(false); // released on exit
  });

  it('two indexer processes at once: one indexes, the other refuses with the first one\'s pid', async () => {
    const { home, env } = freshHome();
    const corpus = join(tmp, 'race-corpus');
    bigCorpus(corpus, 50, 1);
    const first = spawn(process.execPath, [BIN, 'index', 'add', corpus, '--region', 'big', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(first);
    let out = '';
    first.stdout!.on('data', (d) => (out += d));
    await waitFor(() => existsSync(join(home, 'indexer.pid')) && readFileSync(join(home, 'indexer.pid'), 'utf8').trim() === String(first.pid), 20_000);
    // Freeze the first one while it holds the lock, so the overlap does not depend on timing.
    first.kill('SIGSTOP');
    try {
      const second = cli(env, '--set', 'indexer.lockWaitMs=0');
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`another indexer (pid ${first.pid}) is running`);
      expect(second.stdout).toBe('');
    } finally {
      first.kill('SIGCONT');
    }
    expect(await exited(first)).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ indexed: 50 });
    // and once it is done, the next indexer runs
    expect(JSON.parse(cli(env, '--json').stdout)).toMatchObject({ unchanged: 50 });
  });
});

describe('crash safety', () => {
  it('SIGKILL mid-index leaves every document whole (old or new) and readable; the next run finishes', async () => {
    const { home, env } = freshHome();
    const corpus = join(tmp, 'crash-corpus');
    const FILES = 300;
    bigCorpus(corpus, FILES, 1);
    // version 1 indexed in-process (cheaper than a CLI run), version 2 by a CLI process we kill
    const w = openStoreWriter(join(home, 'store.sqlite'));
    try {
      w.ensureRegion('big', 'global');
      w.addSource('big', corpus, 'notes');
      expect((await runIndex({ store: w, embedder: await offlineEmbedder(), config: ConfigSchema.parse({}) })).indexed).toBe(FILES);
    } finally {
      w.close();
    }
    bigCorpus(corpus, FILES, 2); // every file changes
    const later = new Date(Date.now() + 60_000);
    for (let i = 0; i < FILES; i++) utimesSync(join(corpus, `n${String(i).padStart(4, '0')}.md`), later, later);

    // Small embedding batches: many commits, so the kill lands between two of them.
    const run = spawn(process.execPath, [BIN, 'index', '--set', 'indexer.embedFlushChunks=16'], { env, stdio: 'ignore' });
    children.push(run);
    const storePath = join(home, 'store.sqlite');
    const v2Chunks = () => {
      const r = openStoreReader(storePath);
      try {
        return r.keywordSearch('version2marker', 10_000).length;
      } finally {
        r.close();
      }
    };
    await waitFor(() => v2Chunks() > 0, 30_000);
    run.kill('SIGSTOP'); // freeze at once (the poll above takes a few ms), then kill
    run.kill('SIGKILL');
    await exited(run);

    const r = openStoreReader(storePath);
    try {
      const v1 = r.keywordSearch('version1marker', 10_000).length;
      const v2 = r.keywordSearch('version2marker', 10_000).length;
      expect(v2).toBeGreaterThan(0);
      expect(v1).toBeGreaterThan(0); // killed mid-run: some documents still old
      const info = r.info();
      expect(info.documents).toBe(FILES);
      expect(v1 + v2).toBe(info.chunks); // each chunk wholly one version
      // every document is whole: all its chunks of one version, ordinals 0..n-1, each with a vector
      for (let i = 0; i < FILES; i += 7) {
        const rel = `n${String(i).padStart(4, '0')}.md`;
        const versions = new Set<string>();
        let n = 0;
        for (let o = 0; ; o++) {
          const c = r.chunkByHandle(`big/${rel}#${o}`);
          if (!c) break;
          n++;
          versions.add(/version(\d)marker/.exec(c.text)![1]);
          expect(r.chunkVector(c.id)).not.toBeNull();
        }
        expect(n).toBeGreaterThan(0);
        expect(versions.size).toBe(1);
      }
    } finally {
      r.close();
    }
    // the stale lock of the killed indexer does not block the next run, which finishes the job
    const done = cli(env, '--json', '--set', 'indexer.lockWaitMs=500');
    expect(done.code).toBe(0);
    const s = JSON.parse(done.stdout);
    expect(s.indexed + s.unchanged).toBe(FILES);
    expect(s.indexed).toBeGreaterThan(0);
    const after = openStoreReader(storePath);
    try {
      expect(after.keywordSearch('version1marker', 10).length).toBe(0);
    } finally {
      after.close();
    }
  });
});

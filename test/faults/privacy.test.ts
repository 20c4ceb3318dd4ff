/**
 * Privacy with the real daemon, hook and indexer:
 *  - sentinel strings planted in transcripts (prompt, reply, tool call, tool output), in hook
 *    prompts and in note bodies never appear in any file of the state dir except the
 *    knowledge store (which legitimately holds note text) — logs, caches, canary, offsets,
 *    hook state, hook settings; while offers really print (control);
 *  - the state dir and every directory under it are 0700, every file 0600;
 *  - no network: the daemon runs fully under `unshare -n` (a network namespace with no
 *    route, root only) and makes offers; during a run it holds no inet socket (/proc fds vs
 *    /proc/net tables); control: with the reasoner configured at a local HTTP server the
 *    same path does connect, and with it unconfigured the server sees nothing.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { readFileSync, readlinkSync, statSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIN,
  OFFER_SETS,
  QUICK,
  WARMUP,
  allFiles,
  appendLines,
  canMount,
  decisions,
  errorExchangeLines,
  exchangeLines,
  indexRegions,
  inetSocketInodes,
  liveConfig,
  newSession,
  payloadFor,
  pgErrorLines,
  printedOffer,
  runHook,
  socketInodes,
  startDaemon,
  tempEnv,
  trySh,
  waitCanary,
  waitFor,
  writeConfig,
  FILLER_NOTES,
  PG_NOTE,
  type Daemon,
  type Env,
  type Session,
} from '../helpers/faults.js';

let e: Env;
afterEach(() => e?.cleanup());

const S = {
  prompt: 'qzvx-sentinel-prompt-5521',
  reply: 'qzvx-sentinel-reply-7730',
  tool: 'qzvx-sentinel-toolcall-1184',
  output: 'qzvx-sentinel-tooloutput-9046',
  hook: 'qzvx-sentinel-hookprompt-3307',
  note: 'qzvx-sentinel-notebody-6612',
};

/** Warm-up and error turns carrying the transcript sentinels. */
function plantedSession(env: Env): Session {
  const s = newSession(env);
  for (const [u, a] of WARMUP) appendLines(s, exchangeLines(s, `${u} (${S.prompt})`, `${a} ${S.reply}`));
  for (let i = 0; i < 3; i++) {
    appendLines(s, errorExchangeLines(
      s,
      `The API keeps failing against postgres with ECONNRESET, ${S.prompt}, what is going on with the connection pool?`,
      `psql --host db.internal ${S.tool}`,
      `Error: read ECONNRESET in worker ${'abc'[i]}\n    at acquireConnection (src/db/${S.output}.ts:41:11)`,
      `The postgres connection pool drops idle connections. ${S.reply}`,
    ));
  }
  return s;
}

/** Paths under `home` that are not 0700 (dirs) / 0600 (files); config.json is the user's own file. */
function permissionExceptions(home: string): string[] {
  const bad: string[] = [];
  const walk = (dir: string) => {
    let st;
    try {
      st = statSync(dir);
    } catch {
      return; // removed meanwhile
    }
    if ((st.mode & 0o777) !== 0o700) bad.push(`${dir.slice(home.length) || '/'} ${(st.mode & 0o777).toString(8)}`);
    let ents;
    try {
      ents = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const ent of ents) {
      const p = join(dir, ent.name);
      if (ent.isDirectory()) walk(p);
      else {
        try {
          const m = statSync(p).mode & 0o777;
          if (m !== 0o600 && ent.name !== 'config.json') bad.push(`${p.slice(home.length)} ${m.toString(8)}`);
        } catch { /* removed meanwhile */ }
      }
    }
  };
  walk(home);
  return bad;
}

describe('privacy: nothing from conversations or notes leaks into state files', () => {
  it('sentinels never appear outside the store; dirs 0700, files 0600; offers still print (control)', async () => {
    e = tempEnv('ab-f-privacy-');
    writeConfig(e, liveConfig());
    indexRegions(e, [
      { name: 'pg-notes', files: { 'pool-timeouts.md': PG_NOTE.replace('Retries succeeded.', `Retries succeeded. ${S.note} was the host.`) } },
      { name: 'misc', files: FILLER_NOTES },
    ]);
    const d = startDaemon(e, OFFER_SETS);
    await waitCanary(e, d.pid);
    const s = plantedSession(e);
    await waitFor(() => decisions(e).filter((r) => r.sessionId === s.id).length >= WARMUP.length + 3, 30_000, 'decisions');
    let printed = 0;
    for (let i = 0; i < 3; i++) {
      const r = await runHook(e, payloadFor(s, `please look at ${S.hook} again`));
      expect(r.code).toBe(0);
      if (printedOffer(r.stdout) !== null) printed++;
    }
    expect(printed).toBeGreaterThan(0); // control: the same run printed offers
    const badWhileRunning = permissionExceptions(e.home);
    // The offer caches exist only while the daemon runs (a clean stop clears them): scan them now.
    const cachesWhileRunning = allFiles(join(e.home, 'cache'));
    expect(cachesWhileRunning.length).toBeGreaterThan(0);
    for (const f of cachesWhileRunning) {
      const text = readFileSync(f, 'latin1');
      for (const [where, sentinel] of Object.entries(S)) expect(text.includes(sentinel), `${where} sentinel in ${f}`).toBe(false);
    }
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    // The planted strings are where they were put…
    expect(readFileSync(s.path, 'utf8')).toContain(S.output);
    const storeFiles = (f: string) => f.startsWith(e.env.ACTIVE_BRAIN_STORE!);
    expect(readFileSync(e.env.ACTIVE_BRAIN_STORE!, 'latin1')).toContain(S.note); // control: the store holds the note
    // …and nowhere else in the state dir.
    const files = allFiles(e.home).filter((f) => !storeFiles(f));
    const kinds = new Set(files.map((f) => f.slice(e.home.length + 1).split('/')[0].replace(/\..*$/, '')));
    for (const k of ['logs', 'hook-state', 'canary', 'offsets', 'hook-settings']) expect(kinds).toContain(k);
    for (const f of files) {
      const text = readFileSync(f, 'latin1');
      for (const [where, sentinel] of Object.entries(S)) expect(text.includes(sentinel), `${where} sentinel in ${f}`).toBe(false);
    }

    // Permissions: 0700 dirs, 0600 files, the state dir itself included (while running and after).
    const bad = [...new Set([...badWhileRunning, ...permissionExceptions(e.home)])];
    console.log(`[faults] privacy: ${files.length + cachesWhileRunning.length} state files scanned for ${Object.keys(S).length} sentinels: none found; permission exceptions: ${bad.length ? bad.join('; ') : 'none'}`);
    expect(bad).toEqual([]);
  });
});

/** A local HTTP server standing in for a reasoner endpoint; counts requests. */
function countingServer(): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { content: '{"choice":null,"type":null,"reason":""}' } }] }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const port = (server.address() as { port: number }).port;
    resolve({ server, url: `http://127.0.0.1:${port}/v1`, hits: () => hits });
  }));
}

/** Check a live daemon's sockets: returns the inet ones (should be none). */
function inetSockets(pid: number): string[] {
  const inet = inetSocketInodes(pid);
  return socketInodes(pid).filter((i) => inet.has(i));
}

async function offersRun(env: Env, d: Daemon): Promise<{ offers: number; inet: string[] }> {
  await waitCanary(env, d.pid);
  const s = newSession(env);
  for (const [u, a] of WARMUP) appendLines(s, exchangeLines(s, u, a));
  const inet: string[] = [];
  for (let i = 0; i < 3; i++) {
    appendLines(s, pgErrorLines(s, i));
    await waitFor(() => decisions(env).filter((r) => r.sessionId === s.id).length >= WARMUP.length + i + 1, 30_000, 'decision');
    inet.push(...inetSockets(d.pid));
  }
  const offers = decisions(env).filter((r) => r.sessionId === s.id && r.would_fire === true).length;
  return { offers, inet };
}

describe('privacy: no network unless the reasoner is configured', () => {
  let srv: Awaited<ReturnType<typeof countingServer>>;
  afterAll(() => srv?.server.close());

  it('default config: offers made, no inet socket ever held, the local endpoint sees no request', async () => {
    srv = await countingServer();
    e = tempEnv('ab-f-net-off-');
    writeConfig(e, liveConfig({ reasoner: { enabled: false, url: srv.url, model: 'm' } })); // configured but off
    indexRegions(e, [{ name: 'pg-notes', files: { 'pool-timeouts.md': PG_NOTE } }, { name: 'misc', files: FILLER_NOTES }]);
    const d = startDaemon(e, OFFER_SETS);
    const r = await offersRun(e, d);
    expect(r.offers).toBeGreaterThan(0);
    expect(r.inet).toEqual([]);
    expect(srv.hits()).toBe(0);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    // Control: the reasoner on, the same path reaches the endpoint, and the socket check sees it.
    const on = tempEnv('ab-f-net-on-');
    try {
      writeConfig(on, liveConfig({ reasoner: { enabled: true, url: srv.url, model: 'm', deadlineMs: 3000 } }));
      indexRegions(on, [{ name: 'pg-notes', files: { 'pool-timeouts.md': PG_NOTE } }, { name: 'misc', files: FILLER_NOTES }]);
      const d2 = startDaemon(on, OFFER_SETS);
      await offersRun(on, d2);
      expect(srv.hits()).toBeGreaterThan(0);
      d2.child.kill('SIGTERM');
      expect(await d2.exited).toBe(0);
    } finally {
      on.cleanup();
    }
    console.log(`[faults] network: reasoner off → 0 requests, no inet sockets; reasoner on → ${srv.hits()} request(s) to the local endpoint`);
  });

  it.skipIf(!canMount || !trySh('unshare', ['-n', 'true']))('the daemon works fully inside a network namespace with no route (unshare -n)', async () => {
    e = tempEnv('ab-f-net-ns-');
    writeConfig(e, liveConfig());
    indexRegions(e, [{ name: 'pg-notes', files: { 'pool-timeouts.md': PG_NOTE } }, { name: 'misc', files: FILLER_NOTES }]);
    const args = ['-n', process.execPath, BIN, 'start', ...[...QUICK, ...OFFER_SETS].flatMap((x) => ['--set', x])];
    const child = spawn('unshare', args, { env: e.env, stdio: ['ignore', 'pipe', 'pipe'] });
    e.track(child);
    const exited = new Promise<number>((r) => child.once('exit', (c) => r(c ?? -1)));
    const d: Daemon = { child, pid: child.pid!, exited, stderr: () => '', stdout: () => '' };
    // unshare execs node in place: same pid, its own network namespace.
    await waitFor(() => readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').startsWith(`${process.execPath}\0`), 10_000, 'exec');
    const ns = (p: number | string) => {
      try {
        return readlinkSync(`/proc/${p}/ns/net`);
      } catch {
        return null;
      }
    };
    expect(ns(child.pid!)).not.toBe(ns('self'));
    const r = await offersRun(e, d);
    expect(r.offers).toBeGreaterThan(0);
    expect(r.inet).toEqual([]);
    const s = newSession(e);
    const hook = await runHook(e, payloadFor(s));
    expect(hook.code).toBe(0);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    console.log(`[faults] network namespace: ${r.offers} offer(s) made with no network at all`);
  });
});

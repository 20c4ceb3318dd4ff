/**
 * The pure verdicts behind issue 38's daemon side: when an unreadable store is tried again
 * (daemon/store-life.ts StoreRetry), which folders of its own the daemon refuses or re-tightens
 * (daemon/own-dirs.ts ownDirProblem), which cache names `stop` may remove
 * (daemon/cache-writer.ts isCacheFileName, clearAll on real files), and SQLite's quick_check
 * verdict (store/quick-check.ts). Each with its control.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REOPEN_EVERY_MS, StoreRetry, isStoreOpenFailure } from '../../daemon/store-life.js';
import { ownDirProblem } from '../../daemon/own-dirs.js';
import { CacheWriter, isCacheFileName } from '../../daemon/cache-writer.js';
import { FixesWriter } from '../../daemon/fixes-writer.js';
import { quickCheck, quickCheckVerdict } from '../../store/quick-check.js';
import Database from 'better-sqlite3';

const dir = mkdtempSync(join(tmpdir(), 'ab-own-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('StoreRetry', () => {
  it('not due before any failure, nor after one while the file is unchanged; due when it changes or REOPEN_EVERY_MS passed; nothing after it opened', () => {
    let stamp = 'a';
    let now = 0;
    const r = new StoreRetry('/x', () => stamp, () => now);
    expect(r.due()).toBe(false);
    expect(r.failed('bad')).toBe(true);
    expect(r.failed('bad')).toBe(false); // the same problem again is not news
    now = REOPEN_EVERY_MS - 1;
    expect(r.due()).toBe(false);
    stamp = 'b';
    expect(r.due()).toBe(true);
    stamp = 'a';
    now = REOPEN_EVERY_MS;
    expect(r.due()).toBe(true);
    expect(r.opened()).toBe(true);
    expect(r.due()).toBe(false);
    expect(r.opened()).toBe(false);
    expect(r.failed('bad')).toBe(true); // news again after a recovery
  });

  it('isStoreOpenFailure names the two reasons only', () => {
    expect(isStoreOpenFailure('store-unreadable: file is not a database')).toBe(true);
    expect(isStoreOpenFailure('store-model-mismatch: built with x')).toBe(true);
    expect(isStoreOpenFailure('store-down: gone')).toBe(false);
    expect(isStoreOpenFailure(null)).toBe(false);
  });
});

describe('ownDirProblem', () => {
  const st = (o: { uid?: number; mode?: number; dir?: boolean; link?: boolean }) => ({ uid: o.uid ?? 1000, mode: o.mode ?? 0o40700, isDirectory: () => o.dir ?? true, isSymbolicLink: () => o.link ?? false });
  it('refuses symlinks, non-folders, other owners; loose when group/others have any bit; ok at 0700 (control)', () => {
    expect(ownDirProblem(undefined, 1000)).toBe('missing');
    expect(ownDirProblem(st({ link: true, dir: false }), 1000)).toEqual({ refuse: 'is a symlink' });
    expect(ownDirProblem(st({ dir: false }), 1000)).toEqual({ refuse: 'is not a folder' });
    expect(ownDirProblem(st({ uid: 0 }), 1000)).toEqual({ refuse: expect.stringContaining('uid 0') });
    expect(ownDirProblem(st({ mode: 0o40777 }), 1000)).toBe('loose');
    expect(ownDirProblem(st({ mode: 0o40750 }), 1000)).toBe('loose');
    expect(ownDirProblem(st({}), 1000)).toBe('ok');
    expect(ownDirProblem(st({ uid: 5 }), null)).toBe('ok'); // no owner to check (Windows)
  });
});

describe('stop clears only its own caches', () => {
  it('isCacheFileName: session caches, tool caches and their temp files; never lineage files or other names', () => {
    expect(isCacheFileName('3f0c2a51.json')).toBe(true);
    expect(isCacheFileName('3f0c2a51.tool.json')).toBe(true);
    expect(isCacheFileName('.3f0c2a51.json.123.456.0.tmp')).toBe(true);
    expect(isCacheFileName('3f0c2a51.lineage.json')).toBe(false);
    expect(isCacheFileName('.hidden.json')).toBe(false);
    expect(isCacheFileName('notes.txt')).toBe(false);
    fc.assert(fc.property(fc.string(), (n) => {
      if (isCacheFileName(n)) expect(n.endsWith('.json') || n.endsWith('.tmp')).toBe(true);
    }));
  });

  it('clearAll removes caches whose JSON names their session, keeps a stranger\'s .json, lineage and anything through a symlinked folder', () => {
    const cache = join(dir, 'cache');
    mkdirSync(cache);
    writeFileSync(join(cache, 's1.json'), JSON.stringify({ version: 1, sessionId: 's1' }));
    writeFileSync(join(cache, 's1.tool.json'), JSON.stringify({ version: 1, sessionId: 's1' }));
    writeFileSync(join(cache, 's1.lineage.json'), JSON.stringify({ version: 1, sessionId: 's1' }));
    writeFileSync(join(cache, 'notes.json'), '{"mine":true}');
    writeFileSync(join(cache, 'other.json'), JSON.stringify({ version: 1, sessionId: 's1' }));
    expect(new CacheWriter(cache).clearAll()).toBe(2);
    expect(readdirSync(cache).sort()).toEqual(['notes.json', 'other.json', 's1.lineage.json']);
    // Through a symlink: nothing.
    const real = join(dir, 'elsewhere');
    mkdirSync(real);
    writeFileSync(join(real, 's2.json'), JSON.stringify({ version: 1, sessionId: 's2' }));
    symlinkSync(real, join(dir, 'linked'));
    expect(new CacheWriter(join(dir, 'linked')).clearAll()).toBe(0);
    expect(readdirSync(real)).toEqual(['s2.json']);
    expect(new CacheWriter(real).clearAll()).toBe(1); // control: the real folder is cleared
  });
});

describe('the fixes folder', () => {
  it('a symlinked fixes/ is not written through; control: a real one is', () => {
    const target = join(dir, 'fixes-target');
    mkdirSync(target);
    symlinkSync(target, join(dir, 'fixes-link'));
    const f = { version: 1 as const, sig: 'aaaaaaaaaaaaaa', storeStamp: 's', createdAt: 1, fixes: [] };
    expect(() => new FixesWriter(join(dir, 'fixes-link')).sync(new Map([['aaaaaaaaaaaaaa', f]]))).toThrow(/symlink/);
    expect(readdirSync(target)).toEqual([]);
    expect(new FixesWriter(target).sync(new Map([['aaaaaaaaaaaaaa', f]]))).toMatchObject({ written: 1 });
  });
});

describe('quick_check', () => {
  it('the verdict: ok, damaged (rows or an open error), unknown (no rows)', () => {
    expect(quickCheckVerdict({ rows: ['ok'] }, 1)).toEqual({ state: 'ok', ms: 1 });
    expect(quickCheckVerdict({ rows: ['*** in database main ***', 'Page 5: btreeInitPage() returns error code 11'] }, 1)).toMatchObject({ state: 'damaged' });
    expect(quickCheckVerdict({ error: 'file is not a database' }, 1)).toMatchObject({ state: 'damaged', problems: ['file is not a database'] });
    expect(quickCheckVerdict({ rows: [] }, 1)).toMatchObject({ state: 'unknown' });
  });

  it('a file that is not SQLite is damaged; a file over the size bound is unknown, not read', () => {
    const junk = join(dir, 'junk.sqlite');
    writeFileSync(junk, 'this is not a sqlite file\n'.repeat(200));
    expect(quickCheck(junk)).toMatchObject({ state: 'damaged' });
    expect(quickCheck(junk, 100)).toMatchObject({ state: 'unknown' });
    const sound = join(dir, 'sound.sqlite');
    const db = new Database(sound);
    db.exec('create table t(x); insert into t values (1), (2);');
    db.close();
    expect(quickCheck(sound)).toMatchObject({ state: 'ok' }); // control
  });
});

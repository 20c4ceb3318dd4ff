/**
 * The tests' PostgreSQL server: the one helper bench/postgres-server.ts (the PostgreSQL bench
 * starts its server the same way), re-exported so tests keep their import path; and the CLI's
 * `store init` as the tests run it.
 */
export * from '../../bench/postgres-server.js';

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './model.js';

/** `active-brain store init --url <adminUrl> --json` as a real process (home: a scratch state
 *  dir); resolves with its JSON (writerUrl, readerUrl, users). */
export function storeInitCli(adminUrl: string, home: string): Promise<{ writerUrl: string; readerUrl: string } & Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [join(repoRoot, 'bin', 'active-brain.js'), 'store', 'init', '--url', adminUrl, '--json'], { env: { ...process.env, ACTIVE_BRAIN_HOME: home } });
    let out = '';
    c.stdout.on('data', (b) => (out += b));
    c.on('exit', () => {
      try {
        resolve(JSON.parse(out));
      } catch (e) {
        reject(e);
      }
    });
  });
}

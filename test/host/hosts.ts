/**
 * The real host CLIs for the host tests (bench/host-cli.ts re-exported) and the rule for a CLI
 * that is not installed: missing locally, its tests are skipped with a message; under CI=true
 * the test file fails (CI must run the host tests).
 */
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { VERSIONS, hostBin, hostCacheDir, type HostName } from '../../bench/host-cli.js';

export * from '../../bench/host-cli.js';

/** What a host test file needs: the binary, or why its tests are skipped. Under CI=true a
 *  missing CLI throws (the file fails): CI must run the host tests. */
export function requireHost(name: HostName): { bin: string | null; skip: string | null } {
  const bin = hostBin(name);
  if (bin) return { bin, skip: null };
  const why = `${VERSIONS[name].package}@${VERSIONS[name].version} is not installed under ${hostCacheDir()}: run \`node scripts/install-hosts.mjs\``;
  if (process.env.CI === 'true') throw new Error(`host tests cannot run in CI: ${why}`);
  console.warn(`skipping the real-host tests: ${why}`);
  return { bin: null, skip: why };
}


/** A real host CLI for a test that drives it: the one `envVar` names, else the pinned one
 *  (requireHost: under CI its absence is an error, locally a skip that says so), else `name`
 *  on PATH; null when there is none. */
export function findHostCli(name: HostName, envVar: string): string | null {
  const own = process.env[envVar];
  if (own) return existsSync(own) ? own : null;
  const pinned = requireHost(name).bin;
  if (pinned) return pinned;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

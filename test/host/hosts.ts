/**
 * The real host CLIs for the host tests (bench/host-cli.ts re-exported) and the rule for a CLI
 * that is not installed: missing locally, its tests are skipped with a message; under CI=true
 * the test file fails (CI must run the host tests).
 */
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


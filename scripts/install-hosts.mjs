#!/usr/bin/env node
// Installs the pinned host CLIs (test/host/versions.json: the real `claude` and `codex`) into a
// cache outside the project's dependencies, each version in its own folder, only when absent:
//   $ACTIVE_BRAIN_HOST_CACHE (default ~/.cache/active-brain-hosts)/<name>-<version>/
// `--latest` installs the newest published versions instead (bench host). `--json` prints
// {name: {version, bin, installed}}. Used by .ci/run and by `npm run bench -- --only host`.
// Exit 1 when a pinned CLI cannot be installed (CI must not run the host tests without it).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const versions = JSON.parse(readFileSync(join(root, 'test', 'host', 'versions.json'), 'utf8'));
const args = process.argv.slice(2);
if (args.includes('--help')) {
  console.log('usage: node scripts/install-hosts.mjs [--latest] [--json]\ninstalls the pinned claude and codex CLIs (test/host/versions.json) into $ACTIVE_BRAIN_HOST_CACHE (default ~/.cache/active-brain-hosts) when absent');
  process.exit(0);
}
const latest = args.includes('--latest');
const cache = process.env.ACTIVE_BRAIN_HOST_CACHE || join(homedir(), '.cache', 'active-brain-hosts');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const out = {};
let failed = false;
for (const [name, pin] of Object.entries(versions)) {
  let version = pin.version;
  try {
    if (latest) version = execFileSync(npm, ['view', pin.package, 'version'], { encoding: 'utf8' }).trim();
    const dir = join(cache, `${name}-${version}`);
    const bin = join(dir, pin.bin);
    let installed = false;
    if (!existsSync(bin)) {
      mkdirSync(dir, { recursive: true });
      console.error(`installing ${pin.package}@${version} into ${dir}`);
      execFileSync(npm, ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', '--prefix', dir, `${pin.package}@${version}`], { stdio: ['ignore', 'ignore', 'inherit'] });
      installed = true;
    }
    if (!existsSync(bin)) throw new Error(`${bin} is missing after the install`);
    out[name] = { version, bin, installed };
  } catch (e) {
    failed = true;
    console.error(`cannot install ${pin.package}@${version}: ${e.message}`);
    out[name] = { version, bin: null, installed: false };
  }
}
if (args.includes('--json')) console.log(JSON.stringify(out));
else for (const [name, v] of Object.entries(out)) console.error(`${name} ${v.version}: ${v.bin ?? 'MISSING'}`);
process.exit(failed ? 1 : 0);

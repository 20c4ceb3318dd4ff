#!/usr/bin/env node
// Writes the committed plugin bundles (hooks/hook.bundle.cjs, hooks/session-start.bundle.cjs):
// what a plugin copy installed by Claude Code runs, since it has no dist/ and no node_modules/.
// Run it (`npm run build:plugin`) and commit the result after changing the hook or SessionStart
// code; test/plugin/bundles.test.ts fails until the committed files equal a fresh build.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLES, bundle } from './bundles.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
if (process.argv.includes('--help')) {
  console.log('usage: node scripts/build-plugin.mjs\nwrites ' + Object.values(BUNDLES).map((b) => b.committed).join(', '));
  process.exit(0);
}
for (const name of Object.keys(BUNDLES)) await bundle(root, name, join(root, BUNDLES[name].committed));
console.error(`wrote ${Object.values(BUNDLES).map((b) => b.committed).join(', ')}`);

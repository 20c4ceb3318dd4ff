#!/usr/bin/env node
// `npm pack` / `npm publish` (prepack, postpack): ship the lockfile as npm-shrinkwrap.json, the
// one lockfile an installed package's tree follows. Without it `npm install -g active-brain`
// resolves every dependency afresh and ignores package.json "overrides" (those apply to the
// root project only): @xenova/transformers would get sharp 0.32, whose install downloads libvips
// from GitHub, instead of 0.33.5 with its prebuilt binaries on the npm registry.
//   node scripts/pack-lock.mjs            copy package-lock.json to npm-shrinkwrap.json
//   node scripts/pack-lock.mjs --remove   remove it again (the repository keeps package-lock.json)
import { copyFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
if (process.argv.includes('--remove')) rmSync(`${root}/npm-shrinkwrap.json`, { force: true });
else copyFileSync(`${root}/package-lock.json`, `${root}/npm-shrinkwrap.json`);

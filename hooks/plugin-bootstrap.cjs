#!/usr/bin/env node
// The plugin's set-up (ops/plugin-bootstrap.ts): `npm ci` in this plugin root (dependencies and
// the build), a check, then the daemon from the root's own CLI. SessionStart spawns it detached
// when no CLI is found (output to <state dir>/logs/plugin-bootstrap.log); run it by hand in a
// terminal to retry after a failure and watch npm:  node <plugin root>/hooks/plugin-bootstrap.cjs
// Exit: 0 done, 1 failed (recorded for the next session's line), 2 another set-up is running.
// Loads the SessionStart bundle (the built one when there is one, else the committed copy).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const root = join(__dirname, '..');
const built = join(root, 'dist', 'session-start.bundle.cjs');
if (process.argv.includes('--help')) {
  process.stdout.write(`usage: node ${join(__dirname, 'plugin-bootstrap.cjs')}\nnpm ci in ${root}, then the daemon from its own CLI; log lines on stdout.\nexit: 0 done, 1 failed, 2 another set-up is running\n`);
  process.exit(0);
}
const m = require(existsSync(built) ? built : join(__dirname, 'session-start.bundle.cjs'));
m.runBootstrap(process.env, root).then((code) => process.exit(code), () => process.exit(1));

#!/usr/bin/env node
// The plugin's SessionStart hook (hooks/hooks.json): starts the active-brain daemon detached
// when none runs, never waits (ops/plugin-session-start.ts). Runs the built bundle
// (dist/session-start.bundle.cjs) when the plugin root is built, else the committed copy beside
// this file (a plugin copy installed by Claude Code has no dist/). Any failure: exit 0.
// Prints nothing either way: SessionStart stdout would be added to the session's context.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const root = join(__dirname, '..');
const built = join(root, 'dist', 'session-start.bundle.cjs');
try {
  require(existsSync(built) ? built : join(__dirname, 'session-start.bundle.cjs')).sessionStart(process.env, root);
} catch {
  // no bundle, unwritable state dir, spawn refused: silence
}
process.exit(0);

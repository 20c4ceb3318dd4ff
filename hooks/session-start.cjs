#!/usr/bin/env node
// The plugin's SessionStart hook (hooks/hooks.json): starts the active-brain daemon detached
// when none runs, never waits (ops/plugin-session-start.ts). Runs the built bundle
// (dist/session-start.bundle.cjs) when the plugin root is built, else the committed copy beside
// this file (a plugin copy installed by Claude Code has no dist/). Any failure: exit 0.
// Prints nothing, but for one line when no active-brain CLI is found (noCliOutput: a systemMessage
// the person sees; plain SessionStart stdout would go into the model's context instead).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const root = join(__dirname, '..');
const built = join(root, 'dist', 'session-start.bundle.cjs');
try {
  const m = require(existsSync(built) ? built : join(__dirname, 'session-start.bundle.cjs'));
  // No CLI to start a daemon with: one line in the session says what to run (shown to the person).
  if (m.sessionStart(process.env, root) === 'no-cli') process.stdout.write(m.noCliOutput());
} catch {
  // no bundle, unwritable state dir, spawn refused: silence
}
process.exit(0);

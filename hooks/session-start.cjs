#!/usr/bin/env node
// The plugin's SessionStart hook (hooks/hooks.json): starts the active-brain daemon detached
// when none runs, or — with no CLI to start it — the plugin's background set-up
// (hooks/plugin-bootstrap.cjs); never waits (ops/plugin-session-start.ts). Runs the built bundle
// (dist/session-start.bundle.cjs) when the plugin root is built, else the committed copy beside
// this file (a plugin copy installed by Claude Code has no dist/). Any failure: exit 0.
// Prints nothing, but for one line when there is something to say (the set-up started, still
// runs or failed, or no CLI and no set-up): a systemMessage the person sees; plain SessionStart
// stdout would go into the model's context instead.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const root = join(__dirname, '..');
const built = join(root, 'dist', 'session-start.bundle.cjs');
try {
  const m = require(existsSync(built) ? built : join(__dirname, 'session-start.bundle.cjs'));
  const out = m.sessionOutput(m.sessionStart(process.env, root), process.env, root);
  if (out) process.stdout.write(out);
} catch {
  // no bundle, unwritable state dir, spawn refused: silence
}
process.exit(0);

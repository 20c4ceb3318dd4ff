#!/usr/bin/env node
// The plugin's SessionStart hook (hooks/hooks.json): starts the active-brain daemon detached
// when none runs, never waits (ops/plugin-session-start.ts). CommonJS so a missing build is a
// caught import error, not a crash: without dist/ (not built) it exits 0 and prints nothing.
// Prints nothing either way: SessionStart stdout would be added to the session's context.
'use strict';
import('../dist/ops/plugin-session-start.js')
  .then((m) => m.sessionStart())
  .catch(() => undefined)
  .finally(() => process.exit(0));

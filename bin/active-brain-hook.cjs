#!/usr/bin/env node
// The Claude Code hook as `active-brain install` and the plugin register it: CommonJS, so
// Node starts it without its ESM loader (measurably faster, see docs/HOOK.md). Loads the one
// bundled, dependency-free file: the build's (dist/hook.bundle.cjs), else the committed copy
// (hooks/hook.bundle.cjs, what a plugin copy installed by Claude Code has: no dist/). If
// neither loads, the prompt or tool call still passes untouched: exit 0, print nothing.
'use strict';
try {
  require('../dist/hook.bundle.cjs');
} catch (e) {
  if (!e || e.code !== 'MODULE_NOT_FOUND') process.exit(0);
  try {
    require('../hooks/hook.bundle.cjs');
  } catch {
    process.exit(0);
  }
}

#!/usr/bin/env node
// The Claude Code UserPromptSubmit hook as `active-brain install` registers it: CommonJS, so
// Node starts it without its ESM loader (measurably faster, see docs/HOOK.md). Loads the one
// bundled, dependency-free file; if that is missing (not built) the prompt still passes
// untouched: exit 0, print nothing.
'use strict';
try {
  require('../dist/hook.bundle.cjs');
} catch {
  process.exit(0);
}

#!/usr/bin/env node
// `active-brain-hook` (package bin): the Claude Code UserPromptSubmit hook. Loads the bundled,
// dependency-free CommonJS file; if it is missing (not built) the prompt must still pass
// untouched: exit 0, print nothing. Runs the launcher `active-brain install` registers
// (bin/active-brain-hook.cjs: the regex flag, the code cache) — registered directly, it skips
// this ESM start.
import { createRequire } from 'node:module';
try {
  createRequire(import.meta.url)('./active-brain-hook.cjs');
} catch {
  process.exit(0);
}

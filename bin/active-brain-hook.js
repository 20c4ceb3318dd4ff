#!/usr/bin/env node
// `active-brain-hook` (package bin): the Claude Code UserPromptSubmit hook. Loads the bundled,
// dependency-free CommonJS file; if it is missing (not built) the prompt must still pass
// untouched: exit 0, print nothing. `active-brain install` registers bin/active-brain-hook.cjs
// directly (no ESM loader: faster start).
import { createRequire } from 'node:module';
try {
  createRequire(import.meta.url)('../dist/hook.bundle.cjs');
} catch {
  process.exit(0);
}

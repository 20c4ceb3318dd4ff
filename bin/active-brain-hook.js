#!/usr/bin/env node
// The Claude Code UserPromptSubmit hook: one bundled, dependency-free file.
import '../dist/hook.bundle.js';

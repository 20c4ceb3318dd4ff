#!/usr/bin/env node
// The `active-brain` command: all subcommands live in dist/cli (built by `npm install`).
import '../dist/cli/main.js';

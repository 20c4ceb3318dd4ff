/**
 * The tool channel's code, as hook/main.ts loads it: bundled on its own (scripts/bundles.mjs:
 * TOOL_BUNDLE_FILE of hook/tool-bundle.ts, in dist/ and hooks/), beside the hook's bundle, and
 * required from there only at a tool event. A prompt then never reads, parses or compiles the
 * signing, redaction and fix-choosing code (two thirds of the hook's code: docs/HOOK.md,
 * "Speed choices"). Exports the tool gates' pure functions main.ts calls, and the warm-up the
 * launcher's code cache of this bundle is made after (hook/warm-tool.ts).
 */
export { sign, toolUseIdOf, findFixFile, hasPlace, toolGates } from './tool-gates.js';
export { warmUp } from './warm-tool.js';

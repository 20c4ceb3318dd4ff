/**
 * Where the tool channel's code is: a bundle of its own (entry hook/tool-channel.ts), written
 * by scripts/bundles.mjs beside the hook's bundle under this name, and required from there by
 * hook/main.ts at a tool event only (a prompt never loads it). test/plugin/bundles.test.ts
 * holds scripts/bundles.mjs to the same name.
 */
import type * as ToolChannelModule from './tool-channel.js';

export const TOOL_BUNDLE_FILE = 'hook-tool.bundle.cjs';

/** What the tool bundle exports. */
export type ToolChannel = typeof ToolChannelModule;

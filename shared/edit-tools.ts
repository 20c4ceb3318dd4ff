/**
 * The tools that change a file's content (Claude Code's Edit / Write / MultiEdit / NotebookEdit,
 * Codex's apply_patch), named once: an episode's step that uses one is a code edit
 * (indexer/episodes.ts), a fix line shows it as `Edit src/a.ts` (shared/fix-place.ts fixEdits,
 * core/fixes.ts), and the uptake reads it back (core/uptake.ts). Pure.
 */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'apply_patch']);

/** The same names as a regular-expression alternation (for patterns over fix lines). */
export const EDIT_TOOLS_ALT = [...EDIT_TOOLS].join('|');

/** The tools that name one file they read or change (an episode's step `Read src/a.ts` too). */
export const FILE_TOOLS: ReadonlySet<string> = new Set([...EDIT_TOOLS, 'Read']);

/**
 * Steps that destroy or create state (pure; the indexer when it cuts a fix, core/fixes.ts when
 * it builds the hook's fixes files). Rule no-state-change (shared/pastfix-rules.ts): such a
 * step was right, if at all, for the state of that repository or folder on that day; told to an
 * agent at another failure — often in another folder — it destroys work or puts state in the
 * wrong place (`git init` where the real fix was a `cd` into the repository), so a fix that
 * needed one is never offered (docs/PASTFIX.md "What a fix is").
 *  - destroys: force-pushing, resetting, aborting a rebase or merge, discarding changes,
 *    starting history over or rewriting it, deleting a branch, skipping hooks, dropping a
 *    table, removing files (`rm`, `rmdir`, `git rm`, `git clean`), `--force` of any tool;
 *  - creates: a repository or a project (`git init`, `npm init`, `cargo new`…): one made in the
 *    wrong folder changes what every tool there sees. (A folder made to copy a file into,
 *    `mkdir -p x && cp …`, is left: it takes nothing away and shadows nothing.)
 */
import { ruleOn } from './pastfix-rules.js';

/** Steps that throw work away or override a safeguard (always: a fix that needs one is none). */
export const DESTRUCTIVE_STEP_RE = new RegExp(
  [
    String.raw`\bgit\s+push\b[^;&|]*\s(?:--force\b|--force-with-lease\b|-f\b|\+\S)`,
    String.raw`\bgit\s+reset\s+--hard\b`,
    String.raw`\bgit\s+(?:rebase|merge|cherry-pick|am)\s+--abort\b`,
    String.raw`\bgit\s+(?:checkout|restore)\s+(?:--\s|\.(?:\s|$)|--staged\b|--orphan\b)`,
    String.raw`\bgit\s+clean\s+-\w*f`,
    String.raw`\bgit\s+branch\s+-D\b`,
    String.raw`\bgit\s+filter-(?:branch|repo)\b`,
    String.raw`\bbfg\b`,
    String.raw`\s--no-verify\b`,
    String.raw`\bdrop\s+(?:table|database)\b`,
  ].join('|'),
  'i',
);

/** Steps that remove files or create state where they run (rule no-state-change). A command
 *  word at the start of a segment (after `&&`, `;`, `|`, `sudo`, a line break, a `Bash:` label). */
export const STATE_STEP_RE = new RegExp(
  [
    String.raw`(?:^|[;&|\n(]\s*|Bash:\s*|\bsudo\s+|\bxargs\s+)(?:rm|rmdir|unlink|truncate|shred)\s`,
    String.raw`\bgit\s+(?:init|rm|stash\s+(?:drop|clear))\b`,
    String.raw`\b(?:npm|pnpm|yarn|bun|cargo|poetry|uv|go\s+mod|dotnet\s+new|composer|mix)\s+(?:init|new)\b`,
    String.raw`\s--force\b`,
    String.raw`\b(?:truncate\s+table|delete\s+from)\b`,
  ].join('|'),
  'i',
);

/** Whether a step (a command, a step summary or a fix line) destroys or creates state. */
export function isDestructive(step: string): boolean {
  return DESTRUCTIVE_STEP_RE.test(step) || (ruleOn('no-state-change') && STATE_STEP_RE.test(step));
}

/** Whether any of these steps (commands or step summaries) destroys or creates state. */
export function anyDestructive(steps: readonly string[]): boolean {
  return steps.some(isDestructive);
}

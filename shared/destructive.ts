/**
 * Steps that throw work away or override a safeguard (pure; the indexer when it cuts a fix,
 * core/fixes.ts when it builds the hook's fixes files): force-pushing, resetting, aborting a
 * rebase or merge, discarding changes, starting history over or rewriting it, deleting a
 * branch, skipping hooks, dropping a table. Such a step was right, if at all, for the state of
 * that repository on that day; told to an agent at another failure it can destroy work, so a
 * fix that needed one is never offered (docs/PASTFIX.md "What a fix is"). Clearing a build
 * folder (`rm -rf node_modules && npm install`) is a common true fix of its own: not here.
 */
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

/** Whether any of these steps (commands or step summaries) is destructive. */
export function anyDestructive(steps: readonly string[]): boolean {
  return steps.some((s) => DESTRUCTIVE_STEP_RE.test(s));
}

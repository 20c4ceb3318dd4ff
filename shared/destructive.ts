/**
 * Steps that destroy or create state (pure; the indexer when it cuts a fix, core/fixes.ts when
 * it builds the hook's fixes files). Rule no-state-change (shared/pastfix-rules.ts): such a
 * step was right, if at all, for the state of that repository or folder on that day; told to an
 * agent at another failure — often in another folder — it destroys work or puts state in the
 * wrong place (`git init` where the real fix was a `cd` into the repository), so a fix that
 * needed one is never offered (docs/PASTFIX.md "What a fix is").
 *  - destroys: force-pushing, resetting, aborting a rebase or merge, discarding changes,
 *    starting history over or rewriting it (a reset, an amend, a rebase), deleting a branch
 *    (also on the remote), skipping hooks, dropping a table or a database, removing files
 *    (`rm`, `rmdir`, `git rm`, `git clean`, `find -delete`) or volumes and clusters' objects
 *    (`docker … down -v`, `kubectl delete`, `terraform destroy`), `--force` of any tool;
 *  - creates: a repository or a project (`git init`, `npm init`, `cargo new`…): one made in the
 *    wrong folder changes what every tool there sees. (A folder made to copy a file into,
 *    `mkdir -p x && cp …`, is left: it takes nothing away and shadows nothing.)
 */
import { ruleOn } from './rule-switch.js';

/** Steps that throw work away or override a safeguard (always: a fix that needs one is none). */
export const DESTRUCTIVE_STEP_RE = new RegExp(
  [
    String.raw`\bgit\s+push\b[^;&|]*\s(?:--force\b|--force-with-lease\b|-f\b|\+\S)`,
    String.raw`\bgit\s+reset\s+(?:--hard|--merge|--keep|HEAD[~^]|[0-9a-f]{7,40}\b)`,
    String.raw`\bgit\s+commit\b[^;&|]*\s--amend\b`,
    String.raw`\bgit\s+rebase\b`,
    String.raw`\bgit\s+push\b[^;&|]*\s(?:--delete\b|-d\b|\S+\s+:\S)`,
    String.raw`\bgit\s+(?:rebase|merge|cherry-pick|am)\s+--abort\b`,
    String.raw`\bgit\s+(?:checkout|restore)\s+(?:--\s|\.(?:\s|$)|--staged\b|--orphan\b)`,
    String.raw`\bgit\s+clean\b`,
    String.raw`\bgit\s+branch\s+-D\b`,
    String.raw`\bgit\s+filter-(?:branch|repo)\b`,
    String.raw`\bbfg\b`,
    String.raw`\s--no-verify\b`,
    String.raw`\bdrop\s+(?:table|database|schema)\b`,
    String.raw`\bdropdb\b|\bdb:drop\b|\bmigrate\s+reset\b|--accept-data-loss\b`,
    String.raw`\bdocker\s+(?:compose\s+)?down\b[^;&|]*\s-v\b|\bdocker\s+(?:system|volume|image|container)\s+prune\b|\bkubectl\s+delete\b|\bterraform\s+destroy\b`,
  ].join('|'),
  'i',
);

/** Steps that remove files or create state where they run (rule no-state-change). A command
 *  word at the start of a segment (after `&&`, `;`, `|`, `sudo`, a line break, a `Bash:` label). */
export const STATE_STEP_RE = new RegExp(
  [
    String.raw`(?:^|[;&|\n(]\s*|Bash:\s*|\b(?:sudo|xargs|then|do|command|env|exec)\s+|\\|/bin/)(?:rm|rmdir|unlink|truncate|shred)(?:\s|$)`,
    String.raw`\bfind\b[^;&|]*\s(?:-delete\b|-exec\s+rm\b)`,
    String.raw`\bgit\s+(?:init|rm|stash\s+(?:drop|clear))\b`,
    String.raw`\b(?:npm|pnpm|yarn|bun|cargo|poetry|uv|go\s+mod|dotnet|composer|mix|rails|django-admin)\s+(?:init|new|create|startproject)\b|\bnpx\s+(?:-y\s+)?create-`,
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

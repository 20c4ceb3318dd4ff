/**
 * Whether a Past-fix rule applies (pure, tiny: the hook bundles it without the rules' prose).
 * The rules themselves — ids, what each means, where it lives — are shared/pastfix-rules.ts;
 * only `eval pastfix --ablate` (through ablateRules there) turns one off, in that process.
 */
import type { PastfixRuleId } from './pastfix-rules.js';

const ablated = new Set<string>();

/** Whether a rule applies (always, but in an `eval pastfix --ablate` run). */
export function ruleOn(id: PastfixRuleId): boolean {
  return ablated.size === 0 || !ablated.has(id);
}

/** The rules turned off for this process (ids already checked by the caller). */
export function setAblated(ids: readonly string[]): void {
  ablated.clear();
  for (const id of ids) ablated.add(id);
}

/**
 * Which agent sent a hook payload, and the transcript root its transcript_path must lie
 * under. Pure and tiny (bundled into the hook; one property read on the prompt path).
 *
 * Codex CLI's hook payloads always carry `turn_id` (a string) and `model`
 * (codex-rs/hooks/schema/generated/*.command.input.schema.json: both required); Claude
 * Code's carry neither. The output shape is the same for both
 * (`hookSpecificOutput.additionalContext`), so only the input side differs.
 */
import type { HookSettings } from '../shared/types.js';

/** True for a Codex CLI payload. */
export function isCodexPayload(p: Record<string, unknown>): boolean {
  return typeof p.turn_id === 'string';
}

/** The root a payload's transcript must lie under ('' when there is none: untrusted). */
export function transcriptRootFor(p: Record<string, unknown>, settings: HookSettings): string {
  return isCodexPayload(p) ? settings.codexSessionsRoot ?? '' : settings.transcriptsRoot;
}

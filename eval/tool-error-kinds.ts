/**
 * What kind of error a failed tool step is, by the rules `eval pastfix` counts with
 * (eval/pastfix.ts): a cascade (a sibling call failed, the user declined, an interrupt), an
 * error with no signature, a `<tool_use_error>` rejection (Claude Code fires no hook for it),
 * or a signed error the hook sees — the only kind `eval pastfix` counts as "errors the hook
 * sees". `replay` / `backtest` count every failed step of the sessions that get offers, so
 * they split their total by these kinds, and count the errors of worker sessions (which
 * pastfix replays too) apart: signed + workers' signed = pastfix's errors. Measured on the
 * three real projects of the eval set: replay 758 errors (642 signed, 51 rejections, 51
 * cascades, 14 without a signature) and 265 signed in worker sessions; pastfix 907 = 642 + 265.
 * Pure.
 */
import { isCascade } from '../shared/error-class.js';
import { errorSignature } from '../shared/error-signature.js';
import type { ReplaySummary } from './replay.js';

export const TOOL_ERROR_KINDS = ['signed', 'rejection', 'cascade', 'no-signature'] as const;
export type ToolErrorKind = (typeof TOOL_ERROR_KINDS)[number];

export function toolErrorKind(step: { isError: boolean; toolUseError: boolean; resultText: string }): ToolErrorKind | null {
  if (!step.isError) return null;
  if (isCascade(step.resultText)) return 'cascade';
  if (!errorSignature(step.resultText)) return 'no-signature';
  return step.toolUseError ? 'rejection' : 'signed';
}

/** "24 errors: 19 the hook sees with a signature (what `eval pastfix` counts), …", and the
 *  signed errors of worker sessions, which pastfix counts too and replay does not offer to. */
export function toolErrorsText(s: Pick<ReplaySummary, 'tool_errors' | 'tool_errors_by_kind' | 'tool_errors_unoffered'>): string {
  const k = s.tool_errors_by_kind;
  const workers = s.tool_errors_unoffered.workers.signed;
  const pastfix = workers ? `; \`eval pastfix\` counts ${k.signed + workers}: these and ${workers} signed error(s) of worker sessions (\`claude -p\`), which get no offers` : '';
  const rest = [
    k.rejection ? `${k.rejection} <tool_use_error> rejection(s) that fire no hook` : '',
    k.cascade ? `${k.cascade} cascade(s) (a sibling call failed, the user declined or interrupted)` : '',
    k['no-signature'] ? `${k['no-signature']} without an error signature` : '',
  ].filter(Boolean);
  return `${s.tool_errors} error(s): ${k.signed} the hook sees with an error signature (what \`eval pastfix\` counts)${rest.length ? `, ${rest.join(', ')}` : ''}${pastfix}`;
}

/**
 * One tool error, signed (pure; the hook bundles it). The one function that turns a failed
 * call's error text, its cwd and its shell command into what decides a Past fix — the hook
 * (hook/tool-gates.ts sign: the payload), the daemon (core/tool-step.ts: the transcript's tool
 * step) and replays call it; the indexer's episodes sign through the same parts
 * (transcript/tool-steps.ts stepErrorText → shared/error-signature.ts), so every path gets the
 * same signature for the same failure.
 *
 * The text is redacted first (a secret is a marker in the store, so it must be one here), the
 * paths naming the folder the shell is in are marked (shared/here-mark.ts), then its key lines
 * give the signature and the line keys (shared/error-keys.ts), and the rules' facts about it:
 * generic (shared/error-class.ts), in the code being written, the program it names, and what
 * to say when the shell was already in the folder (shared/cwd-persists.ts).
 */
import { keyLines } from './error-signature.js';
import { errorKeys } from './error-keys.js';
import { codeError, genericKind, type GenericKind } from './error-class.js';
import { markedError } from './here-mark.js';
import { cwdPersisted, cwdPersistsAdvice } from './cwd-persists.js';
import { namedProgram } from './command-keys.js';
import { ruleOn } from './rule-switch.js';
import type { Redactor } from './redact.js';

/** Characters of the error kept for naming checks (a fix's edited files must be named there). */
export const ERROR_TEXT_CHARS = 16_384;

/** A failed call's error, signed. */
export interface ErrorSignal {
  kind: 'error';
  sig: string;
  lineKeys: string[];
  generic: GenericKind | null;
  text: string;
  /** The failing shell command ('' for another tool). */
  command: string;
  /** The tool whose call failed (`Bash`, `Glob`; '' when unknown). */
  tool: string;
  /** An error in the code being written (shared/error-class.ts codeError): its exact signature only. */
  code: boolean;
  /** The program its lead line names as the one that failed (`ls`, `cd`), else null. */
  program: string | null;
  /** A path in it started with the folder the shell is already in: what to do, else null. */
  advice: string | null;
}

/** What a tool event carries: an error signed, an interrupt, or nothing to sign. */
export type ToolSignal = ErrorSignal | { kind: 'interrupted' } | { kind: 'none' };

/** Signs one error: `text` the raw error, `cwd` the directory after the call (the payload's,
 *  the result record's), `command` its shell command ('' for another tool). */
export function signError(text: string, cwd: string | null, command: string, redactor: Redactor, tool = ''): ToolSignal {
  const redacted = redactor.redact(text);
  const marked = markedError(redacted, cwd, command);
  const lines = keyLines(marked);
  const keys = errorKeys(lines);
  if (!keys) return { kind: 'none' };
  const program = namedProgram(lines[0] ?? '');
  // Only where the mark was made here (a literal `<here>` in an error says nothing); from the
  // redacted cwd and command (a token in a folder name is a marker before it is cut or shown).
  const persisted = ruleOn('cwd-persists') && marked !== redacted && cwdPersisted(lines);
  const advice = persisted && cwd ? cwdPersistsAdvice(redactor.redact(cwd), redactor.redact(command), program) : null;
  return {
    kind: 'error', sig: keys.sig, lineKeys: keys.lineKeys, generic: ruleOn('generic-error') ? genericKind(text, lines) : null, text: text.slice(0, ERROR_TEXT_CHARS), command, tool,
    code: ruleOn('code-being-written') && codeError(lines), program, advice,
  };
}

/** The keys a signal's fixes file may be read under, in order: its signature, then its line
 *  keys — only the signature for an error in the code being written (the very same complaint). */
export function fixKeys(signal: ToolSignal): string[] {
  if (signal.kind !== 'error' || signal.generic) return [];
  return signal.code ? [signal.sig] : [signal.sig, ...signal.lineKeys];
}

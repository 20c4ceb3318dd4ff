/**
 * Reading an evaluation dataset file for a CLI command: unreadable → exit 3, wrong shape →
 * exit 2, both naming the file and what went wrong. Used by every `eval` command.
 */
import { readFileSync } from 'node:fs';
import { EXIT, UserError } from '../shared/errors.js';

/** Read `path` and parse it; `kind` completes "<path> is not <kind> file" (e.g. "a TIAGE"). */
export function readDataset<T>(path: string, kind: string, parse: (raw: string) => T): T {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read ${path}: ${(e as Error).message}`, EXIT.ENV);
  }
  try {
    return parse(raw);
  } catch (e) {
    throw new UserError(`${path} is not ${kind} file: ${(e as Error).message}`, EXIT.USAGE);
  }
}

/**
 * What `eval pastfix` and `eval prompts` share: the one transcripts folder they read (checked,
 * with the projects in it), the replay seed, the judged gold file (read and parsed, its errors
 * naming it), and the run over the sessions with a progress bar (TTY only) in which a gold that
 * does not fit the transcripts is a usage error. Reads files; writes only the progress bar.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { EXIT, UserError } from '../../command.js';
import { createProgress } from '../../../eval/progress.js';
import { findProjects } from '../../../eval/pastfix.js';
import { GoldError } from '../../../eval/pastfix-gold.js';

type Projects = ReturnType<typeof findProjects>;

/** The one transcripts folder an eval reads, and its projects (a clear error otherwise). */
export function transcriptsFolder(command: string, positionals: readonly string[]): { dir: string; projects: Projects } {
  if (positionals.length !== 1) throw new UserError(`${command} needs one transcripts folder, e.g. active-brain ${command} ~/.claude/projects. Run with --help for usage.`, EXIT.USAGE);
  const dir = resolve(positionals[0]);
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a folder');
  } catch (e) {
    throw new UserError(`cannot read ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}. Give a folder of <project>/<session>.jsonl transcripts.`, EXIT.ENV);
  }
  const projects = findProjects(dir);
  if (!projects.length) throw new UserError(`no <project>/<session>.jsonl transcripts under ${dir}`, EXIT.ENV);
  return { dir, projects };
}

/** `--seed` (default 1). */
export function seedFlag(raw: string | undefined): number {
  const seed = raw === undefined ? 1 : Number(raw);
  if (!Number.isInteger(seed) || seed < 0) throw new UserError(`--seed must be a non-negative integer (got "${raw}")`, EXIT.USAGE);
  return seed;
}

/** `--gold FILE` read and parsed (undefined without the flag); an unreadable or bad file is a usage error naming it. */
export function goldFlag<T>(path: string | undefined, parse: (text: string, name: string) => T): T | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(resolve(path), 'utf8');
  } catch (e) {
    throw new UserError(`cannot read the gold ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, EXIT.USAGE);
  }
  try {
    return parse(text, path);
  } catch (e) {
    throw new UserError((e as Error).message, EXIT.USAGE);
  }
}

/** Run an eval over the projects' sessions with a progress bar; a gold that does not fit them is a usage error. */
export async function overSessions<T>(projects: Projects, run: (onSession: (done: number) => void) => Promise<T>): Promise<T> {
  const progress = createProgress('sessions', projects.reduce((n, p) => n + p.sessions.length, 0));
  try {
    return await run((n) => progress.update(n));
  } catch (e) {
    if (e instanceof GoldError) throw new UserError(e.message, EXIT.USAGE);
    throw e;
  } finally {
    progress.done();
  }
}

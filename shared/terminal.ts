/**
 * Whether the process may draw on its terminal (progress bars, colours): stderr is a TTY and
 * not CI. Used by the CLI and by the progress lines of the indexer and the evaluations.
 */

/** True when progress bars and colours may be drawn. */
export function isTty(): boolean {
  return Boolean(process.stderr.isTTY) && process.env.CI !== 'true';
}

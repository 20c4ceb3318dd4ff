/**
 * Is a string a transcript record's uuid (lineage, docs/OFFERS.md)? The exchange assembler
 * (transcript/exchanges.ts) names an exchange without a record uuid `offset-<bytes>`: such a
 * placeholder is no message and links no sessions. Used by the indexer and the pipeline.
 * Also the one bound on a lineage handed to the hook (a fix's `sourceSessions`, a session's
 * lineage file), which the hook checks.
 */

/** Placeholder prefix of an exchange without a record uuid (transcript/exchanges.ts). */
export const NO_UUID_PREFIX = 'offset-';

export function isMessageUuid(u: string | null | undefined): u is string {
  return typeof u === 'string' && u !== '' && !u.startsWith(NO_UUID_PREFIX);
}

/** Most sessions one lineage names in the files the hook reads (a fix's own lineage, a
 *  session's lineage file); the hook refuses a longer list. A chain of resumes longer than
 *  this keeps its first sessions by id order. */
export const MAX_LINEAGE_SESSIONS = 64;

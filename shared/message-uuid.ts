/**
 * Is a string a transcript record's uuid (lineage, docs/OFFERS.md)? The exchange assembler
 * (transcript/exchanges.ts) names an exchange without a record uuid `offset-<bytes>`: such a
 * placeholder is no message and links no sessions. Used by the indexer and the pipeline.
 */

/** Placeholder prefix of an exchange without a record uuid (transcript/exchanges.ts). */
export const NO_UUID_PREFIX = 'offset-';

export function isMessageUuid(u: string | null | undefined): u is string {
  return typeof u === 'string' && u !== '' && !u.startsWith(NO_UUID_PREFIX);
}

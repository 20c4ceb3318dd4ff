/**
 * The retrieval evals' score table (`eval retrieval`, `eval beir`): one row per metric, one
 * column per search arm (keyword, vector, hybrid), four decimals. Pure.
 */

/** A metric's score under each arm. */
export interface ArmScores {
  keyword: number;
  vector: number;
  hybrid: number;
}

/** The table's lines: a header, then a row per metric in the object's order. */
export function armsTable(scores: Record<string, ArmScores>): string[] {
  const lines = [`${'metric'.padEnd(10)} ${'keyword'.padStart(8)} ${'vector'.padStart(8)} ${'hybrid'.padStart(8)}`];
  for (const [name, a] of Object.entries(scores)) {
    lines.push(`${name.padEnd(10)} ${a.keyword.toFixed(4).padStart(8)} ${a.vector.toFixed(4).padStart(8)} ${a.hybrid.toFixed(4).padStart(8)}`);
  }
  return lines;
}

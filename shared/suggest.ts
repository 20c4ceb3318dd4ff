/**
 * "Did you mean …": the nearest name to a mistyped command or flag (Damerau–Levenshtein,
 * optimal string alignment), offered only when it is close enough to be a typo. Pure.
 */

/** Edits allowed for a suggestion: one per 4 characters of the typed name, at least 1, at most 3. */
export function maxEdits(typed: string): number {
  return Math.max(1, Math.min(3, Math.floor(typed.length / 4)));
}

/** Optimal string alignment distance (insert, delete, substitute, swap neighbours). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The closest of `names` to `typed`, or null when `typed` is one of them or none is within
 *  maxEdits (ties: first listed). */
export function closest(typed: string, names: readonly string[]): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  const t = typed.toLowerCase();
  for (const n of names) {
    if (n === typed) return null; // it is a known name
    // Case differences count as one edit (cycleMS → cycleMs is a typo too).
    const dist = editDistance(t, n.toLowerCase()) || (n !== typed ? 1 : 0);
    if (dist < bestD) {
      best = n;
      bestD = dist;
    }
  }
  return best !== null && bestD <= maxEdits(typed) ? best : null;
}

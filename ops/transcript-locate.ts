/**
 * Finds a session's transcript under the transcript root (<root>/<project>/<session>.jsonl)
 * and reads the exchanges just before an offer, live from the file (never from logs, which
 * hold no conversation text).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { exchangesFromFile } from '../transcript/exchanges.js';
import type { Exchange } from '../shared/types.js';
import { safeSessionId } from '../shared/paths.js';

export function findTranscript(root: string, sessionId: string): string | null {
  if (!safeSessionId(sessionId) || !existsSync(root)) return null;
  for (const project of readdirSync(root, { withFileTypes: true })) {
    if (!project.isDirectory()) continue;
    const p = join(root, project.name, `${sessionId}.jsonl`);
    if (existsSync(p)) return p;
  }
  return null;
}

/** The last `n` exchanges ending at or before byte `offset` (the offer's turn). */
export async function exchangesBefore(path: string, offset: number, n: number): Promise<Exchange[]> {
  const window: Exchange[] = [];
  for await (const ex of exchangesFromFile(path)) {
    if (ex.startOffset >= offset) break;
    window.push(ex);
    if (window.length > n) window.shift();
  }
  return window;
}

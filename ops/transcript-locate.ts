/**
 * Finds a session's transcript under the transcript root (<root>/<project>/<session>.jsonl)
 * and reads what surrounds an offer, live from the file (never from logs, which hold no
 * conversation text): the exchanges just before a prompt-channel offer, the tool call a
 * tool-channel offer was made at and the calls around it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { exchangesFromFile } from '../transcript/exchanges.js';
import { scanLines } from '../transcript/lines.js';
import { parseLine } from '../transcript/records.js';
import { ToolStepTracker, type ToolStep } from '../transcript/tool-steps.js';
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

export interface StepsAround {
  /** The steps shown, in step order; `target` indexes the offer's step. */
  steps: ToolStep[];
  target: number;
  /** How the offer's step was found: by its tool call id, or by its number alone. */
  matchedBy: 'tool_use_id' | 'step';
}

async function scanFor(path: string, match: (s: ToolStep) => boolean, before: number, after: number): Promise<{ steps: ToolStep[]; target: number } | null> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const tracker = new ToolStepTracker();
    const prior: ToolStep[] = [];
    const later: ToolStep[] = [];
    let found: ToolStep | null = null;
    scan: for await (const batch of scanLines(fh, { offset: 0, skippingFrom: null }, size, { includeUnterminated: true })) {
      for (const l of batch.lines) {
        for (const s of tracker.push(parseLine(l.line), l.startOffset, l.endOffset)) {
          if (found) {
            later.push(s);
            if (later.length >= after) break scan;
          } else if (match(s)) {
            found = s;
            if (after === 0) break scan;
          } else {
            prior.push(s);
            if (prior.length > before) prior.shift();
          }
        }
      }
    }
    if (!found) return null;
    const steps = [...prior, found, ...later].sort((x, y) => x.step - y.step);
    return { steps, target: steps.indexOf(found) };
  } finally {
    await fh.close();
  }
}

/**
 * The tool call an offer was made at and the calls around it (`before` earlier, `after`
 * later), read live from the transcript: found by its tool call id, else by its step
 * number (the hook's count, which matches the transcript's when the hook saw every call).
 * Streams the file (bounded memory); null when neither is found.
 */
export async function toolStepsAround(path: string, at: { toolUseId?: string; step?: number }, before: number, after: number): Promise<StepsAround | null> {
  if (at.toolUseId) {
    const r = await scanFor(path, (s) => s.toolUseId === at.toolUseId, before, after);
    if (r) return { ...r, matchedBy: 'tool_use_id' };
  }
  if (at.step !== undefined) {
    const r = await scanFor(path, (s) => s.step === at.step, before, after);
    if (r) return { ...r, matchedBy: 'step' };
  }
  return null;
}

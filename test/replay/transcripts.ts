/**
 * Real-format Claude Code transcript lines for the replay tests, with fixed timestamps and
 * uuids (so a replay of them is reproducible): a warm-up of ordinary exchanges, then the
 * postgres ECONNRESET turn of the retrieval fixture as a failing tool call, then one more
 * prompt (the hook fires at it). Written into temp dirs laid out like ~/.claude/projects.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PG_ERROR_TURN } from '../retrieval/fixture.js';

export const WARMUP = [
  ['Let us add pagination to the invoices endpoint of the api', 'Added limit and offset parameters to the invoices handler.'],
  ['Now write a test for the invoices pagination with two pages', 'Wrote a test that creates 30 invoices and reads two pages.'],
  ['Rename the page size parameter to limit in the invoices handler', 'Renamed page_size to limit and updated the callers.'],
  ['Update the api docs for the invoices endpoint', 'Documented the limit and offset parameters in the api docs.'],
] as const;

export const SESSION_T0 = Date.UTC(2026, 10, 2, 9, 0, 0);
/** Between two exchanges (longer than the default cooldown and hook gap). */
export const STEP_MS = 10 * 60_000;

export interface LineOptions {
  /** The postgres error is then fixed in the session (the same command with a setting succeeds). */
  resolved?: boolean;
  sessionId: string;
  cwd?: string;
  sidechain?: boolean;
  agentId?: string;
  /** Omit every timestamp (the replay must still be reproducible). */
  noTimestamps?: boolean;
  t0?: number;
}

/** The lines of one session: warm-up, the failing postgres turn, a closing prompt. */
export function sessionLines(o: LineOptions): string[] {
  const cwd = o.cwd ?? '/work/app';
  let n = 0;
  let last: string | null = null;
  let t = o.t0 ?? SESSION_T0;
  const base = (type: string, at: number) => {
    const uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;
    const rec: Record<string, unknown> = {
      parentUuid: last,
      isSidechain: o.sidechain ?? false,
      userType: 'external',
      cwd,
      sessionId: o.sessionId,
      version: '2.1.39',
      gitBranch: 'main',
      type,
      uuid,
      ...(o.noTimestamps ? {} : { timestamp: new Date(at).toISOString() }),
      ...(o.agentId ? { agentId: o.agentId } : {}),
    };
    last = uuid;
    return rec;
  };
  const user = (text: string, at: number) => JSON.stringify({ ...base('user', at), message: { role: 'user', content: text } });
  const assistant = (content: unknown[], at: number) =>
    JSON.stringify({ ...base('assistant', at), message: { model: 'claude-opus-4-6', id: `msg_${n}`, type: 'message', role: 'assistant', content, stop_reason: null } });
  const turnEnd = (at: number) => JSON.stringify({ ...base('system', at), subtype: 'turn_duration', durationMs: 1000, isMeta: false });
  const lines: string[] = [];
  for (const [u, a] of WARMUP) {
    lines.push(user(u, t), assistant([{ type: 'text', text: a }], t + 5000), turnEnd(t + 6000));
    t += STEP_MS;
  }
  lines.push(
    user(PG_ERROR_TURN.user, t),
    assistant([{ type: 'tool_use', id: 'toolu_pg1', name: 'Bash', input: { command: 'npm run test:db' } }], t + 3000),
    JSON.stringify({ ...base('user', t + 9000), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_pg1', is_error: true, content: PG_ERROR_TURN.toolErrors[0] }] } }),
    // The same intent, changed by a setting, then succeeding: a Past fix (docs/PASTFIX.md).
    ...(o.resolved
      ? [
          assistant([{ type: 'tool_use', id: 'toolu_pg2', name: 'Bash', input: { command: 'PG_IDLE_TIMEOUT_MS=10000 npm run test:db' } }], t + 10_000),
          JSON.stringify({ ...base('user', t + 12_000), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_pg2', is_error: false, content: 'All 12 db tests passed' }] } }),
        ]
      : []),
    assistant([{ type: 'text', text: PG_ERROR_TURN.assistant }], t + 15_000),
    turnEnd(t + 16_000),
  );
  t += STEP_MS;
  lines.push(user('Thanks, let us look at the pool settings next', t), assistant([{ type: 'text', text: 'Opening the pool configuration.' }], t + 4000), turnEnd(t + 5000));
  return lines;
}

export function writeLines(path: string, lines: string[]): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

export const MAIN_ID = 'aaaaaaaa-1111-4222-8333-444444444444';
export const SUB_AGENT = 'a7c9e01';

/** A projects folder with one main session and the same content as its subagent's sidechain. */
export function writeProjects(root: string, opts: { noTimestamps?: boolean } = {}): { main: string; sub: string } {
  const project = join(root, '-work-app');
  const main = writeLines(join(project, `${MAIN_ID}.jsonl`), sessionLines({ sessionId: MAIN_ID, noTimestamps: opts.noTimestamps }));
  const sub = writeLines(
    join(project, MAIN_ID, 'subagents', `agent-${SUB_AGENT}.jsonl`),
    sessionLines({ sessionId: MAIN_ID, sidechain: true, agentId: SUB_AGENT, noTimestamps: opts.noTimestamps }),
  );
  return { main, sub };
}

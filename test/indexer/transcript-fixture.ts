/**
 * A small synthetic Claude Code transcript builder (same record shapes as the real
 * 2.1.x transcripts described in ../shared/eval/README.md) for the indexer tests:
 * prompts, tool calls, failing tool results, replies and turn ends.
 */
import { randomUUID } from 'node:crypto';

export class TranscriptBuilder {
  readonly lines: string[] = [];
  private t: number;
  private last: string | null = null;
  constructor(readonly sessionId: string = randomUUID(), readonly isSidechain = false, t0: number = Date.parse('2026-03-01T10:00:00Z')) {
    this.t = t0;
  }

  private base(type: string) {
    this.t += 5_000;
    const uuid = randomUUID();
    const rec = {
      parentUuid: this.last,
      isSidechain: this.isSidechain,
      userType: 'external',
      cwd: '/home/dev/api',
      sessionId: this.sessionId,
      version: '2.1.39',
      gitBranch: 'main',
      type,
      uuid,
      timestamp: new Date(this.t).toISOString(),
    };
    this.last = uuid;
    return rec;
  }

  prompt(text: string): this {
    this.lines.push(JSON.stringify({ ...this.base('user'), message: { role: 'user', content: text } }));
    return this;
  }

  /** A tool call and its result (failing when `error`). */
  tool(name: string, input: Record<string, unknown>, result: string, error = false): this {
    const id = `toolu_${randomUUID().slice(0, 8)}`;
    this.lines.push(JSON.stringify({
      ...this.base('assistant'),
      message: { id: `msg_${randomUUID().slice(0, 8)}`, role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    }));
    this.lines.push(JSON.stringify({
      ...this.base('user'),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result, ...(error ? { is_error: true } : {}) }] },
    }));
    return this;
  }

  reply(text: string): this {
    this.lines.push(JSON.stringify({
      ...this.base('assistant'),
      message: { id: `msg_${randomUUID().slice(0, 8)}`, role: 'assistant', content: [{ type: 'text', text }] },
    }));
    return this;
  }

  endTurn(): this {
    this.lines.push(JSON.stringify({ ...this.base('system'), subtype: 'turn_duration', durationMs: 1234, isMeta: false }));
    return this;
  }

  /** Noise Claude Code writes that is not part of a turn. */
  noise(): this {
    this.lines.push(JSON.stringify({ ...this.base('progress'), data: { type: 'hook_progress', hookEvent: 'PostToolUse' } }));
    this.lines.push(JSON.stringify({ type: 'file-history-snapshot', messageId: randomUUID(), snapshot: {} }));
    return this;
  }

  /** Chain the next record to the last record of `other` (a copy continues its parent). */
  continueFrom(other: TranscriptBuilder): this {
    this.last = other.last;
    return this;
  }

  raw(line: string): this {
    this.lines.push(line);
    return this;
  }

  text(): string {
    return this.lines.join('\n') + '\n';
  }
}

/** Copied records that keep the parent's `sessionId` (the real copies keep it on a few, 1–7). */
const PARENT_ID_KEPT = 2;

/**
 * A session resumed or forked the way Claude Code does it: a new session file whose first
 * records repeat the parent's records with their uuids — the `sessionId` field rewritten to
 * the new session except on the first PARENT_ID_KEPT records, as in the real projects — then
 * its own records. `at`: the time of the copy's own first record.
 */
export function forkOf(parent: TranscriptBuilder, sessionId: string = randomUUID(), at?: number): TranscriptBuilder {
  const lastT = Math.max(...parent.lines.map((l) => Date.parse((JSON.parse(l) as { timestamp?: string }).timestamp ?? '') || 0));
  const fork = new TranscriptBuilder(sessionId, false, at ?? lastT + 3_600_000);
  parent.lines.forEach((l, i) => {
    const r = JSON.parse(l) as Record<string, unknown>;
    if (typeof r.sessionId === 'string' && i >= PARENT_ID_KEPT) r.sessionId = sessionId;
    fork.raw(JSON.stringify(r));
  });
  fork.continueFrom(parent);
  return fork;
}

/** The "Past fix" story: tests fail on a refused Postgres connection, the fix follows. */
export function pastFixSession(sessionId?: string, t0?: number): TranscriptBuilder {
  return new TranscriptBuilder(sessionId, false, t0)
    .prompt('run the integration tests for the orders service')
    .tool('Bash', { command: 'npm run test:integration' }, 'FAIL orders.spec.ts\nError: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect', true)
    .reply('The tests cannot reach Postgres on port 5432: the database is not running.')
    .endTurn()
    .noise()
    .prompt('start it with docker compose and run them again')
    .tool('Bash', { command: 'docker compose up -d postgres' }, 'Container api-postgres-1  Started')
    .tool('Bash', { command: 'npm run test:integration' }, 'Tests: 42 passed, 42 total')
    .reply('Started Postgres with docker compose; the integration tests pass now (42 passed).')
    .endTurn()
    .prompt('thanks, now update the changelog')
    .tool('Edit', { file_path: 'CHANGELOG.md' }, 'ok')
    .reply('Added an entry for the orders service fix to CHANGELOG.md.')
    .endTurn();
}

/**
 * The retrieval fixture's postgres ECONNRESET story as real transcript lines, shared by the
 * daemon tests that provoke a prompt-channel offer (offer, team store, team store faults):
 * four warm-up exchanges, then the exchange whose Bash call fails with the error the fixture's
 * past session fixed (test/retrieval/fixture.ts PG_ERROR_TURN).
 */
import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { PG_ERROR_TURN } from '../retrieval/fixture.js';
import { assistantLine, turnEndLine, userLine, type Session } from './helpers.js';

export const PG_WARMUP: Array<[string, string]> = [
  ['Set up the postgres connection for the api service', 'Added a pg pool in src/db/pool.ts.'],
  ['Add a health check endpoint that runs a query against postgres', 'Added GET /health running SELECT 1.'],
  ['Write a load test for the api with many concurrent requests', 'Added a k6 script with 200 virtual users.'],
  ['Run the load test against the api and the database', 'Running it now.'],
];

/** The failing exchange: a Bash tool call whose result is the fixture's error (optionally
 *  every record stamped with `entrypoint`, e.g. `sdk-cli` for a worker session). */
export function appendPgErrorExchange(s: Session, entrypoint?: string): void {
  const toolId = `toolu_${randomUUID().replace(/-/g, '')}`;
  const patch = (line: string) => (entrypoint ? JSON.stringify({ ...JSON.parse(line), entrypoint }) : line);
  const toolUse = JSON.stringify({
    ...JSON.parse(assistantLine(s, '')),
    message: { role: 'assistant', id: `msg_${randomUUID()}`, type: 'message', content: [{ type: 'tool_use', id: toolId, name: 'Bash', input: { command: 'npm run load-test' } }] },
  });
  const result = JSON.stringify({
    ...JSON.parse(userLine(s, '')),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, is_error: true, content: PG_ERROR_TURN.toolErrors[0] }] },
  });
  const lines = [userLine(s, PG_ERROR_TURN.user), toolUse, result, assistantLine(s, PG_ERROR_TURN.assistant), turnEndLine(s)];
  appendFileSync(s.path, lines.map(patch).join('\n') + '\n');
}

/**
 * A synthetic Claude Code project holding one fake secret of each kind in each context
 * (eval/secret-shapes.ts), written as real-format transcripts (the record shapes of Claude
 * Code 2.1.x: user / assistant / tool_use / tool_result / turn_duration) plus one Markdown note
 * quoting some of them in a heading, an alias, prose and an error fence. The same GitHub token
 * also fails `git push` in two sessions (its episode signature must be one). Used by the
 * redaction done-when test and bench/redaction.bench.ts. Returns the values to look for.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SECRET_SHAPES, secretCases, type Rnd } from './secret-shapes.js';

class Session {
  readonly id = randomUUID();
  readonly lines: string[] = [];
  private t = Date.parse('2026-03-01T10:00:00Z');
  private last: string | null = null;
  private n = 0;

  private base(type: string) {
    this.t += 5_000;
    const uuid = randomUUID();
    const rec = { parentUuid: this.last, isSidechain: false, userType: 'external', cwd: '/home/dev/api', sessionId: this.id, version: '2.1.39', gitBranch: 'main', type, uuid, timestamp: new Date(this.t).toISOString() };
    this.last = uuid;
    return rec;
  }

  prompt(text: string): this {
    this.lines.push(JSON.stringify({ ...this.base('user'), message: { role: 'user', content: text } }));
    return this;
  }

  tool(name: string, input: Record<string, unknown>, result: string, error = false): this {
    const id = `toolu_${this.id.slice(0, 8)}${String(this.n++).padStart(4, '0')}`;
    this.lines.push(JSON.stringify({ ...this.base('assistant'), message: { id: `msg_${id}`, role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } }));
    this.lines.push(JSON.stringify({ ...this.base('user'), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result, ...(error ? { is_error: true } : {}) }] } }));
    return this;
  }

  reply(text: string): this {
    this.lines.push(JSON.stringify({ ...this.base('assistant'), message: { id: `msg_r${this.n++}`, role: 'assistant', content: [{ type: 'text', text }] } }));
    return this;
  }

  endTurn(): this {
    this.lines.push(JSON.stringify({ ...this.base('system'), subtype: 'turn_duration', durationMs: 1234, isMeta: false }));
    return this;
  }
}

export interface SecretCorpus {
  /** `<dir>/projects` (a transcripts root with one project folder). */
  transcripts: string;
  /** `<dir>/notes` (a notes folder). */
  notes: string;
  /** Every secret value written (what must never come out). */
  values: string[];
  /** The token that fails `git push` in two sessions. */
  gitToken: string;
  cases: number;
}

const SESSIONS = 4;

export function writeSecretCorpus(dir: string, rnd: Rnd): SecretCorpus {
  const project = join(dir, 'projects', '-home-dev-api');
  mkdirSync(project, { recursive: true });
  const cases = secretCases(rnd);
  const gitToken = SECRET_SHAPES.find((s) => s.kind === 'github-token')!.make(rnd);
  const sessions = Array.from({ length: SESSIONS }, () => new Session());
  cases.forEach((c, i) => {
    const b = sessions[i % SESSIONS];
    b.prompt(`step ${i}: check the ${c.kind} handling`);
    switch (c.context) {
      case 'command':
        b.tool('Bash', { command: c.text }, 'curl: (7) Failed to connect to api.internal.example port 443: Connection refused', true).tool('Bash', { command: c.text }, '{"ok":true}');
        break;
      case 'tool-output':
        b.tool('Bash', { command: `npm run deploy -- --env staging-${i}` }, c.text, true).tool('Bash', { command: `npm run deploy -- --env staging-${i}` }, 'deployed');
        break;
      case 'env-read':
        b.tool('Read', { file_path: '/home/dev/api/.env' }, c.text);
        break;
      case 'prose':
        b.reply(c.text);
        break;
      case 'json':
        b.tool('Bash', { command: 'cat config/settings.json' }, c.text);
        break;
      case 'url':
        b.tool('WebFetch', { url: c.text.split(' ')[1] ?? c.text, prompt: 'check it' }, c.text, true).reply(`The fetch failed: ${c.text}`);
        break;
    }
    b.endTurn();
  });
  for (const [k, b] of sessions.slice(0, 2).entries()) {
    const remote = `https://x-access-token:${gitToken}@github.com/acme/api${k}.git`;
    b.prompt('push the branch')
      .tool('Bash', { command: `git push ${remote} HEAD` }, `remote: Invalid username or token.\nfatal: Authentication failed for '${remote}/'`, true)
      .tool('Bash', { command: 'gh auth login --with-token < ~/.config/gh/token' }, 'Logged in')
      .tool('Bash', { command: `git push ${remote} HEAD` }, 'To github.com:acme/api.git\n   abc..def  HEAD -> main')
      .reply('Pushed after logging in again.')
      .endTurn();
  }
  for (const b of sessions) writeFileSync(join(project, `${b.id}.jsonl`), b.lines.join('\n') + '\n');
  const notes = join(dir, 'notes');
  mkdirSync(notes, { recursive: true });
  const quoted = cases.filter((c) => c.context === 'prose' || c.context === 'json');
  writeFileSync(join(notes, 'credentials.md'), [
    '---', `aliases: [deploy-key ${quoted[0].value}]`, '---', `# Deploy notes ${quoted[1].value}`, '',
    ...quoted.map((c, i) => `## Item ${i}\n\n${c.text}\n\n\`\`\`text\nError: authentication failed for ${c.framed}\n\`\`\`\n\nFixed by rotating the key.\n`),
  ].join('\n'));
  return { transcripts: join(dir, 'projects'), notes, values: [...cases.map((c) => c.value), gitToken], gitToken, cases: cases.length };
}

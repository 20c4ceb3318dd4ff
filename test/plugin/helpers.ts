/**
 * Running the plugin's hook commands the way Claude Code runs a shell-form hook (hooks
 * reference, "Exec form and shell form": `sh -c <command>` on macOS and Linux, the event's
 * JSON on stdin, CLAUDE_PLUGIN_ROOT exported), timed until its stdio closes (a child that kept
 * a pipe open would hold Claude Code up just the same).
 */
import { spawn } from 'node:child_process';
import hooks from '../../hooks/hooks.json' with { type: 'json' };

export const hooksJson = hooks;
export type Event = keyof typeof hooksJson.hooks;
export const commandOf = (event: Event): string => hooksJson.hooks[event][0].hooks[0].command;
export const SH = '/bin/sh';

export interface Ran { code: number | null; stdout: string; stderr: string; ms: number }

/** `sh -c <command>` as Claude Code runs a shell-form hook; resolves when its stdio closes. */
export function runAsClaudeCode(command: string, env: NodeJS.ProcessEnv, stdin: unknown, cwd?: string): Promise<Ran> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(SH, ['-c', command], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString('utf8')));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    child.stdin.on('error', () => undefined);
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr, ms: performance.now() - t0 }));
    child.stdin.end(typeof stdin === 'string' ? stdin : JSON.stringify(stdin));
  });
}


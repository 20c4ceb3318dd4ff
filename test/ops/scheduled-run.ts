/**
 * The scheduled index run exactly as the systemd timer starts it: the command line and
 * environment are read from the ExecStart= / Environment= lines of the unit `service install
 * --dry-run` generates (plus PATH and HOME from the manager), then spawned as a real process.
 * Used by the scheduled-index tests (schedule-soak, schedule-pastfix).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { cli, type Env } from '../daemon/helpers.js';

/** One word of a systemd command line or assignment, unquoted (systemd.syntax). */
function systemdWords(s: string): string[] {
  const out: string[] = [];
  for (const m of s.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    const w = m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2];
    out.push(w.replace(/%%/g, '%').replace(/\$\$/g, '$'));
  }
  return out;
}

/** The scheduled run as the timer starts it: ExecStart argv + the unit's Environment (+ PATH, HOME from the manager). */
export function scheduledCommand(e: Env): { argv: string[]; env: NodeJS.ProcessEnv } {
  const r = cli({ ...e, env: { ...e.env, XDG_CONFIG_HOME: join(e.home, '..', 'xdg') } }, ['service', 'install', '--platform', 'linux', '--no-manage', '--dry-run', '--json']);
  expect(r.code).toBe(0);
  const unit = (JSON.parse(r.stdout).files as Array<{ role: string; content: string }>).find((f) => f.role === 'index-service')!.content;
  const lines = unit.split('\n');
  const argv = systemdWords(lines.find((l) => l.startsWith('ExecStart='))!.slice('ExecStart='.length));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  for (const l of lines.filter((x) => x.startsWith('Environment='))) {
    const [kv] = systemdWords(l.slice('Environment='.length));
    env[kv.slice(0, kv.indexOf('='))] = kv.slice(kv.indexOf('=') + 1);
  }
  return { argv, env };
}

export interface Run { code: number; stderr: string }
export function runScheduled(cmd: { argv: string[]; env: NodeJS.ProcessEnv }, e: Env, onStart?: (pid: number) => void): Promise<Run> & { pid: number } {
  const child = spawn(cmd.argv[0], cmd.argv.slice(1), { env: cmd.env, stdio: ['ignore', 'ignore', 'pipe'] });
  e.track(child);
  let stderr = '';
  child.stderr!.on('data', (b) => (stderr += b));
  onStart?.(child.pid!);
  const p = new Promise<Run>((res) => child.once('exit', (code, sig) => res({ code: code ?? (sig === 'SIGKILL' ? 137 : -1), stderr })));
  return Object.assign(p, { pid: child.pid! });
}


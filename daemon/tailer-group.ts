/**
 * Several tailers (daemon/tailer.ts) seen as one: the daemon tails Claude Code's transcript
 * root and Codex CLI's sessions root with one consumer. Re-emits every child's events
 * (`lines` listeners' promises are awaited, so back-pressure still holds per child), routes
 * `commit` to the child that owns the path, and starts, sweeps and closes them together.
 * Each child has its own root, layout (host) and offsets file.
 */
import { EventEmitter } from 'node:events';
import { Tailer, type LinesListener, type TailerOptions } from './tailer.js';

const FORWARDED = ['skipped', 'reset', 'removed', 'warning'] as const;

export class TailerGroup extends EventEmitter {
  readonly tailers: Tailer[];

  constructor(opts: TailerOptions[]) {
    super();
    this.tailers = opts.map((o) => new Tailer(o));
    for (const t of this.tailers) {
      t.on('lines', (...args: Parameters<LinesListener>) => Promise.all((this.listeners('lines') as LinesListener[]).map((l) => l(...args))).then(() => undefined));
      for (const e of FORWARDED) t.on(e, (...args: unknown[]) => this.emit(e, ...args));
    }
  }

  get watchedFiles(): number {
    return this.tailers.reduce((n, t) => n + t.watchedFiles, 0);
  }
  get watchedSessions(): number {
    return this.tailers.reduce((n, t) => n + t.watchedSessions, 0);
  }

  async start(): Promise<void> {
    await Promise.all(this.tailers.map((t) => t.start()));
  }
  async close(): Promise<void> {
    await Promise.all(this.tailers.map((t) => t.close()));
  }
  async idle(): Promise<void> {
    await Promise.all(this.tailers.map((t) => t.idle()));
  }
  async sweep(): Promise<void> {
    await Promise.all(this.tailers.map((t) => t.sweep()));
  }
  /** Each child ignores paths it does not tail. */
  commit(path: string, offset: number, state?: unknown): void {
    for (const t of this.tailers) t.commit(path, offset, state);
  }
}

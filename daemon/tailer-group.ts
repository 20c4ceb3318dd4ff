/**
 * Several tailers (daemon/tailer.ts) seen as one: the daemon tails Claude Code's transcript
 * root and Codex CLI's sessions root with one consumer, whose callbacks (daemon/tail-events.ts)
 * every child calls (a `lines` promise is awaited, so back-pressure still holds per child).
 * Routes `commit` to the child that owns the path, and starts, sweeps and closes them together.
 * Each child has its own root, layout (host) and offsets file.
 */
import { Tailer, type TailerOptions } from './tailer.js';
import type { TailerEvents } from './tail-events.js';

export class TailerGroup {
  readonly tailers: Tailer[];

  constructor(opts: TailerOptions[], events: Partial<TailerEvents> = {}) {
    this.tailers = opts.map((o) => new Tailer(o, events));
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

/**
 * config.json changing under the running daemon: `enable` / `disable` change modes (and the
 * hook's settings at once) and `setup` switches the index schedule; the cycle
 * (daemon/cycle.ts) follows within a cycle. This notices the file being rewritten (its mtime
 * and size) and loads it again (config/load.ts, with the start's --set flags).
 */
import { statSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { configPath } from '../shared/paths.js';

/** mtime+size of a file, or '' when absent: enough to notice config.json being rewritten. */
function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return '';
  }
}

export class ConfigReload {
  private readonly path: string;
  private stamp: string;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly flags: string[] | undefined,
  ) {
    this.path = configPath(env);
    this.stamp = fileStamp(this.path);
  }

  /** The config loaded again when the file changed since the last look, else null. Throws
   *  when the changed file does not load (it is not tried again until it changes again). */
  changed(): Config | null {
    const stamp = fileStamp(this.path);
    if (stamp === this.stamp) return null;
    this.stamp = stamp;
    return loadConfig({ env: this.env, flags: this.flags }).config;
  }
}

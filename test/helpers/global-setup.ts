/**
 * Runs once before the suite: builds dist/ (the CLI, daemon and hook bundle the tests
 * spawn) and the offline model (cached across runs).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { offlineModelPath, repoRoot } from './model.js';

export default function setup(): void {
  execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
  offlineModelPath();
}

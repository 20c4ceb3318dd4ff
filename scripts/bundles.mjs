// The dependency-free CommonJS bundles: the hook (hook/main.ts) and the plugin's SessionStart
// (ops/plugin-session-start.ts). scripts/build.mjs writes them into dist/; scripts/build-plugin.mjs
// writes the committed copies under hooks/ that a plugin installed by Claude Code (a copy of the
// git tree: no dist/, no node_modules/) runs; test/plugin/bundles.test.ts proves the committed
// copies equal a fresh build. Same esbuild version + same options → the same bytes.
import { build } from 'esbuild';
import { join } from 'node:path';

export const BUNDLES = /** @type {const} */ ({
  hook: { entry: join('hook', 'main.ts'), dist: 'hook.bundle.cjs', committed: join('hooks', 'hook.bundle.cjs') },
  sessionStart: { entry: join('ops', 'plugin-session-start.ts'), dist: 'session-start.bundle.cjs', committed: join('hooks', 'session-start.bundle.cjs') },
});

/** Bundle one entry of BUNDLES (under `root`) into `outfile`. CommonJS on purpose: Node starts a
 *  CJS file much faster than an ESM one that imports built-ins (bench/hook.bench.ts). */
export async function bundle(root, name, outfile) {
  await build({
    entryPoints: [join(root, BUNDLES[name].entry)],
    outfile,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true, // ~40% smaller, less to parse on every prompt
    legalComments: 'none',
    logLevel: 'warning',
  });
}

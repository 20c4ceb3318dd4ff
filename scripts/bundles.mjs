// The dependency-free CommonJS bundles: the hook (hook/main.ts), its tool channel
// (hook/tool-channel.ts, loaded by the hook at a tool event) and the plugin's SessionStart
// (ops/plugin-session-start.ts). scripts/build.mjs writes them into dist/; scripts/build-plugin.mjs
// writes the committed copies under hooks/ that a plugin installed by Claude Code (a copy of the
// git tree: no dist/, no node_modules/) runs; test/plugin/bundles.test.ts proves the committed
// copies equal a fresh build. Same esbuild version + same options → the same bytes.
import { build } from 'esbuild';
import { join } from 'node:path';

/**
 * Built-ins the hook bundle requires on first use instead of at its start, with the functions
 * it imports from each (a name missing here fails the build: the stand-in is an ES module).
 * Each costs milliseconds of every hook start when loaded up front (docs/HOOK.md, speed choices):
 *   node:crypto  only Redactor.fingerprint hashes (the indexer reads it; the hook never does);
 *   node:os      only homedir, and only without $HOME on POSIX (shared/paths.ts userHome): ~0.5 ms.
 */
const HOOK_LAZY_BUILTINS = { 'node:crypto': ['createHash'], 'node:os': ['homedir'] };

export const BUNDLES = /** @type {const} */ ({
  hook: { entry: join('hook', 'main.ts'), dist: 'hook.bundle.cjs', committed: join('hooks', 'hook.bundle.cjs'), lazy: HOOK_LAZY_BUILTINS },
  // The tool channel's code, required by the hook's bundle from beside it at a tool event only
  // (hook/tool-bundle.ts names the file): a prompt never parses or compiles it.
  hookTool: { entry: join('hook', 'tool-channel.ts'), dist: 'hook-tool.bundle.cjs', committed: join('hooks', 'hook-tool.bundle.cjs'), lazy: HOOK_LAZY_BUILTINS },
  sessionStart: { entry: join('ops', 'plugin-session-start.ts'), dist: 'session-start.bundle.cjs', committed: join('hooks', 'session-start.bundle.cjs') },
});

const LAZY_NS = 'lazy-builtin';

/** esbuild plugin: each built-in of `lazy` ({ name: [function, …] }) becomes a stand-in module
 *  whose functions require the real one on their first call. */
function lazyBuiltins(lazy) {
  const filter = new RegExp(`^(?:${Object.keys(lazy).map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})$`);
  return {
    name: 'lazy-builtins',
    setup(b) {
      // The stand-in's own require of the built-in stays a plain (external) require.
      b.onResolve({ filter }, (a) => (a.namespace === LAZY_NS ? { path: a.path, external: true } : { path: a.path, namespace: LAZY_NS }));
      b.onLoad({ filter: /.*/, namespace: LAZY_NS }, (a) => ({
        loader: 'js',
        contents: [
          'let m;',
          `const load = () => (m ??= require(${JSON.stringify(a.path)}));`,
          ...lazy[a.path].map((f) => `export function ${f}(...args) { return load().${f}(...args); }`),
        ].join('\n'),
      }));
    },
  };
}

/** Bundle one entry of BUNDLES (under `root`) into `outfile`. CommonJS on purpose: Node starts a
 *  CJS file much faster than an ESM one that imports built-ins (bench/hook.bench.ts). */
export async function bundle(root, name, outfile) {
  const lazy = BUNDLES[name].lazy;
  await build({
    plugins: lazy ? [lazyBuiltins(lazy)] : [],
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

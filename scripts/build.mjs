// Build: transpile every TypeScript module to dist/ (esbuild, no bundling, layout kept), then
// bundle the hook and the plugin's SessionStart into dependency-free files (scripts/bundles.mjs). Type checking is separate: `npm run typecheck`.
import { build } from 'esbuild';
import { BUNDLES, bundle } from './bundles.mjs';
import { readdirSync, statSync, rmSync, mkdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_DIRS = ['cli', 'config', 'shared', 'store', 'embed', 'indexer', 'search', 'transcript',
  'core', 'daemon', 'retrieval', 'hook', 'eval', 'bench', 'ops'];

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

function walkJs(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walkJs(p, out);
    else if (p.endsWith('.js') || p.endsWith('.js.map')) out.push(p);
  }
  return out;
}

const entryPoints = SOURCE_DIRS.flatMap((d) => walk(join(root, d)));
mkdirSync(join(root, 'dist'), { recursive: true });
await build({
  entryPoints,
  outdir: join(root, 'dist'),
  outbase: root,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
// The hook and the plugin's SessionStart: one file each, no runtime dependencies, no heavy
// imports (scripts/bundles.mjs; the committed copies under hooks/ come from build-plugin.mjs).
rmSync(join(root, 'dist', 'hook.bundle.js'), { force: true }); // the former ESM bundle
for (const name of Object.keys(BUNDLES)) {
  if (existsSync(join(root, BUNDLES[name].entry))) await bundle(root, name, join(root, 'dist', BUNDLES[name].dist));
}
// Drop outputs whose source is gone (dist/ is not wiped first: tests in other processes may be
// running the CLI from it while a build happens).
for (const out of walkJs(join(root, 'dist'))) {
  const rel = relative(join(root, 'dist'), out);
  if (rel === 'hook.bundle.js' || rel === 'hook.bundle.js.map') continue;
  if (!existsSync(join(root, rel.replace(/\.js(\.map)?$/, '.ts')))) rmSync(out, { force: true });
}
console.error(`built ${entryPoints.length} modules + hook bundle into ${relative(process.cwd(), join(root, 'dist')) || 'dist'}`);

#!/usr/bin/env node
// `npm pack` / `npm publish` (prepack, postpack): the package carries the dependency tree this
// checkout tested, since package.json "overrides" apply to the root project only and an
// installed package's tree is otherwise resolved afresh.
// - @xenova/transformers is bundled (package.json "bundleDependencies"): the tarball holds it
//   and its dependencies as installed here, so sharp is the overridden 0.33.5 (whose install
//   downloads nothing) and not the ^0.32 transformers asks for (whose install downloads libvips
//   from GitHub). npm honours a bundle both from a local tarball (`npm install -g
//   ./active-brain-*.tgz`) and from the registry. So before packing, this checks that
//   node_modules is this checkout's own installed tree with the overridden versions in it.
// - The lockfile is shipped as npm-shrinkwrap.json, without its dev-only entries: npm reads it
//   for a package installed from the registry (whose metadata says the package has one; never
//   for a local tarball), and pins the other dependencies there. Dev-only entries would be
//   installed: with a bundle, npm loads the package's shrinkwrap as if it were a project
//   (measured, npm 11: 270 packages with vitest and esbuild, 1.3 GB, instead of 159, 295 MB).
//   node scripts/pack-lock.mjs            check the bundle's tree; write npm-shrinkwrap.json
//   node scripts/pack-lock.mjs --remove   remove it again (the repository keeps package-lock.json)
import { existsSync, lstatSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** Why node_modules under `dir` cannot be bundled as it is, or null when it can. */
function bundleProblem(dir) {
  const pkg = readJson(`${dir}/package.json`);
  const modules = `${dir}/node_modules`;
  if (!existsSync(modules)) return 'node_modules is missing';
  if (lstatSync(modules).isSymbolicLink()) return 'node_modules is a link (npm pack would bundle the link\'s entries without their dependencies)';
  for (const name of pkg.bundleDependencies ?? []) {
    if (!existsSync(`${modules}/${name}/package.json`)) return `node_modules/${name} is missing`;
  }
  for (const [name, want] of Object.entries(pkg.overrides ?? {})) {
    const file = `${modules}/${name}/package.json`;
    const got = existsSync(file) ? readJson(file).version : 'missing';
    if (got !== want) return `node_modules/${name} is ${got}, the override says ${want}`;
  }
  return null;
}

/** The lockfile as shipped: the same, less the packages only development needs. Pure. */
function shippedLock(lock) {
  const packages = {};
  for (const [location, entry] of Object.entries(lock.packages ?? {})) {
    if (location === '') {
      const { devDependencies: _dev, ...rootEntry } = entry;
      packages[location] = rootEntry;
    } else if (!entry.dev) {
      packages[location] = entry;
    }
  }
  return { ...lock, packages };
}

if (process.argv.includes('--remove')) {
  rmSync(`${root}/npm-shrinkwrap.json`, { force: true });
} else {
  const problem = bundleProblem(root);
  if (problem) {
    console.error(`pack-lock: cannot pack: ${problem}. Run \`npm ci\` in this checkout, then pack again.`);
    process.exit(1);
  }
  const lock = shippedLock(readJson(`${root}/package-lock.json`));
  writeFileSync(`${root}/npm-shrinkwrap.json`, `${JSON.stringify(lock, null, 2)}\n`);
}

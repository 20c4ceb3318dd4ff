#!/usr/bin/env node
// README.md's layout table against the code, run in CI: the table between the
// `<!-- layout:start -->` and `<!-- layout:end -->` markers must list the runtime folders in
// the order scripts/check-imports.mjs enforces (LAYERS, top first), and each row's "imports"
// column must name exactly the folders that folder's files import (type-only imports too),
// in that order. The "what it holds" column is prose and kept as written.
//
//   node scripts/check-layout.mjs                      # this checkout: exit 1 on any mismatch
//   node scripts/check-layout.mjs --write              # rewrite the table from the code (keeps the prose)
//   node scripts/check-layout.mjs --root DIR [--layers a,b,c]   # another tree (the script's tests)
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAYERS, buildGraph, runtimeFiles } from './check-imports.mjs';

export const START = '<!-- layout:start -->';
export const END = '<!-- layout:end -->';
const HEADER = ['| folder | what it holds | imports (from the code) |', '| --- | --- | --- |'];

/** Folder → the other runtime folders its files import, in `layers` order. */
export function folderImports(root, layers = LAYERS) {
  const graph = buildGraph(root, runtimeFiles(root));
  const uses = new Map(layers.map((l) => [l, new Set()]));
  for (const [from, edges] of graph) {
    const a = from.split('/')[0];
    for (const { to } of edges) {
      const b = to.split('/')[0];
      if (a !== b) (uses.get(a) ?? uses.set(a, new Set()).get(a)).add(b);
    }
  }
  const rank = new Map(layers.map((l, i) => [l, i]));
  return new Map([...uses].map(([f, s]) => [f, [...s].sort((x, y) => (rank.get(x) ?? 99) - (rank.get(y) ?? 99))]));
}

/** The table's rows as written: [{ folder, holds, imports }], or null when the markers are missing. */
export function readTable(readme) {
  const i = readme.indexOf(START);
  const j = readme.indexOf(END);
  if (i < 0 || j < i) return null;
  return readme
    .slice(i + START.length, j)
    .split('\n')
    .filter((l) => /^\|\s*`/.test(l))
    .map((l) => {
      const cells = l.split('|').slice(1, -1).map((c) => c.trim());
      return { folder: cells[0].replace(/`/g, '').replace(/\/$/, ''), holds: cells[1] ?? '', imports: cells[2] ?? '' };
    });
}

const importsCell = (list) => (list.length ? list.join(', ') : 'nothing');

/** The table as it should read: LAYERS order, imports from the code, prose from `rows`. */
export function renderTable(rows, imports, layers = LAYERS) {
  const holds = new Map(rows.map((r) => [r.folder, r.holds]));
  return [...HEADER, ...layers.map((f) => `| \`${f}/\` | ${holds.get(f) || '(say what it holds)'} | ${importsCell(imports.get(f) ?? [])} |`)].join('\n');
}

/** Differences between the written table and the code, as messages (empty: they agree). */
export function compare(rows, imports, layers = LAYERS) {
  const out = [];
  const written = rows.map((r) => r.folder);
  if (written.join(' ') !== layers.join(' ')) out.push(`folders: the table lists ${written.join(' > ') || 'none'}; the order enforced is ${layers.join(' > ')}`);
  for (const r of rows) {
    if (!layers.includes(r.folder)) continue;
    const want = importsCell(imports.get(r.folder) ?? []);
    if (r.imports !== want) out.push(`${r.folder}/: the table says it imports "${r.imports}"; the code imports ${want}`);
  }
  for (const r of rows) if (!r.holds) out.push(`${r.folder}/: no "what it holds" text`);
  return out;
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const at = (k) => (args.includes(k) ? args[args.indexOf(k) + 1] : undefined);
  const root = at('--root') ? resolve(at('--root')) : fileURLToPath(new URL('..', import.meta.url));
  const layers = at('--layers') ? at('--layers').split(',') : LAYERS;
  const readmePath = join(root, 'README.md');
  if (!existsSync(readmePath)) {
    console.error(`check-layout: no README.md in ${root}`);
    process.exit(2);
  }
  const readme = readFileSync(readmePath, 'utf8');
  const rows = readTable(readme);
  if (!rows) {
    console.error(`check-layout: README.md has no layout table (the ${START} … ${END} markers): add them around it`);
    process.exit(1);
  }
  const imports = folderImports(root, layers);
  if (args.includes('--write')) {
    const i = readme.indexOf(START) + START.length;
    const j = readme.indexOf(END);
    writeFileSync(readmePath, readme.slice(0, i) + '\n' + renderTable(rows, imports, layers) + '\n' + readme.slice(j));
    console.log(`check-layout: README.md's layout table written from the code (${layers.length} folders)`);
    process.exit(0);
  }
  const diffs = compare(rows, imports, layers);
  for (const d of diffs) console.error(`check-layout: ${d}`);
  if (diffs.length) {
    console.error('check-layout: README.md\'s layout table differs from the code: run `node scripts/check-layout.mjs --write` and check the prose');
    process.exit(1);
  }
  console.log(`check-layout: README.md's layout table matches the code (${layers.length} folders, in the enforced order)`);
}

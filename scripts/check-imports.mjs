#!/usr/bin/env node
// Import rules for the runtime code (every .ts file outside test/ and bench/), run in CI:
//
// 1. No import cycle among runtime modules. Type-only imports (`import type`, `export type`)
//    are erased at build time and cannot make a load-order cycle, so they do not count here.
// 2. Arrows point down: a folder imports only folders below it in LAYERS (and itself). Type-only
//    imports count here (a folder that names another's types knows about it).
//
// Every violation is printed with the files involved (a cycle as `a.ts → b.ts → a.ts`, a wrong
// arrow as `x/file.ts imports y/file.ts`); the script exits 1 when there is any, 0 otherwise.
// README.md ("Layout") lists the same order with what each folder imports;
// scripts/check-layout.mjs (run in CI) fails when the two differ.
//
//   node scripts/check-imports.mjs              # this checkout
//   node scripts/check-imports.mjs --root DIR   # another tree, no exceptions (the script's tests use fixtures)
//   node scripts/check-imports.mjs --json       # {"ok", "files", "cycles", "arrows", "stale"}
//
// KNOWN_CYCLES / KNOWN_ARROWS list exceptions tolerated while a move is under way (none today);
// they can only shrink (an entry that no longer matches is an error).
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The folders, top first: each may import those after it, never those before it. */
export const LAYERS = [
  'cli', //       commands: parse flags, print, exit codes; uses everything below
  'eval', //      measurement (replay, backtest, LoCoMo, BEIR, pastfix): runs the pipeline on recordings
  'ops', //       operations behind commands: doctor, status, service files, reports, soak
  'daemon', //    the long-running process: tailers, cache writer, index schedule, logs
  'hook', //      the hook process: gates, cache reads, one offer line
  'indexer', //   files → chunks → store writes
  'core', //      decisions on an exchange: triggers, pipeline, fixes
  'retrieval', // queries, fusion, confidence, reasons over search results
  'search', //    hybrid search over a store reader
  'embed', //     embedding models and the embedding server
  'store', //     the knowledge store: SQLite and PostgreSQL behind one reader and writer
  'transcript', // transcript records (Claude Code, Codex) → exchanges
  'config', //    config.json: schema, load, persist
  'shared', //    small pure helpers every folder may use
];

/** Wrong-way imports tolerated while a move is under way, as [importing file, imported file]
 *  (empty: issue 24 moved the last ones). An entry that no longer matches an import is
 *  reported too, so the list can only shrink. */
export const KNOWN_ARROWS = [];

/** Import cycles tolerated while a move is under way, each as its sorted file list (empty). */
export const KNOWN_CYCLES = [];

/** Not runtime code: never checked, and nothing runtime may import them (tsc would not build it). */
const SKIP = new Set(['node_modules', 'dist', '.git', '.models', 'test', 'bench', 'scripts', 'bin', 'hooks', 'logs-schema', 'docs']);

/** Every .ts file under the runtime folders, as paths relative to root with '/' separators. */
export function runtimeFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const rel = relative(root, p).split(sep).join('/');
      if (statSync(p).isDirectory()) {
        if (!SKIP.has(rel) && !name.startsWith('.')) walk(p);
      } else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && rel.includes('/')) out.push(rel);
    }
  };
  walk(root);
  return out.sort();
}

/** The relative imports of one source file: { spec, typeOnly } (static imports, re-exports, import()). */
export function importsOf(source, fileName = 'x.ts') {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const out = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      // `import type {…}`, or every named binding marked `type` (and no default import).
      const allTypes = !!c && (c.isTypeOnly || (!c.name && !!c.namedBindings && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly)));
      out.push({ spec: node.moduleSpecifier.text, typeOnly: allTypes });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      out.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      out.push({ spec: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out.filter((i) => i.spec.startsWith('.'));
}

/** The module graph: file → [{ to, typeOnly }] over runtime files only. */
export function buildGraph(root, files) {
  const known = new Set(files);
  const graph = new Map();
  for (const f of files) {
    const edges = [];
    for (const { spec, typeOnly } of importsOf(readFileSync(join(root, f), 'utf8'), f)) {
      const target = relative(root, resolve(root, dirname(f), spec)).split(sep).join('/');
      const to = [target.replace(/\.js$/, '.ts'), target + '.ts', target + '/index.ts'].find((t) => known.has(t));
      if (to) edges.push({ to, typeOnly });
    }
    graph.set(f, edges);
  }
  return graph;
}

/** Strongly connected components with more than one file (or a file importing itself), each
 *  reported as one concrete cycle through its smallest file name. Tarjan's algorithm, iterative. */
export function findCycles(graph) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const comps = [];
  let next = 0;
  const succ = (v) => (graph.get(v) ?? []).filter((e) => !e.typeOnly).map((e) => e.to);
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1];
      const [v, i] = top;
      const s = succ(v);
      if (i < s.length) {
        top[1]++;
        const w = s[i];
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
        continue;
      }
      work.pop();
      if (work.length) low.set(work[work.length - 1][0], Math.min(low.get(work[work.length - 1][0]), low.get(v)));
      if (low.get(v) === index.get(v)) {
        const comp = [];
        let w;
        do {
          w = stack.pop();
          onStack.delete(w);
          comp.push(w);
        } while (w !== v);
        if (comp.length > 1 || succ(v).includes(v)) comps.push(comp);
      }
    }
  }
  // One cycle per component: breadth-first from its smallest file back to itself inside it.
  return comps.map((comp) => {
    const inComp = new Set(comp);
    const first = [...comp].sort()[0];
    const prev = new Map();
    const queue = [first];
    while (queue.length) {
      const v = queue.shift();
      for (const w of succ(v).filter((x) => inComp.has(x)).sort()) {
        if (w === first) {
          const path = [first];
          for (let x = v; x !== first; x = prev.get(x)) path.splice(1, 0, x);
          return [...path, first];
        }
        if (!prev.has(w)) {
          prev.set(w, v);
          queue.push(w);
        }
      }
    }
    return [first, first];
  });
}

/** Imports that point up (or into a folder missing from LAYERS): { from, to, why }. */
export function findArrows(graph, layers = LAYERS) {
  const rank = new Map(layers.map((l, i) => [l, i]));
  const out = [];
  for (const [from, edges] of graph) {
    const a = from.split('/')[0];
    if (!rank.has(a)) {
      out.push({ from, to: from, why: `folder ${a}/ is not in the declared order (scripts/check-imports.mjs LAYERS): add it where it belongs` });
      continue;
    }
    for (const { to } of edges) {
      const b = to.split('/')[0];
      if (a === b || !rank.has(b)) continue;
      if (rank.get(b) < rank.get(a)) out.push({ from, to, why: `${a}/ is below ${b}/ in the folder order: move what both need below ${a}/` });
    }
  }
  // A folder missing from LAYERS is reported once, not per file.
  const seen = new Set();
  return out.filter((x) => (x.from === x.to ? !seen.has(x.from.split('/')[0]) && seen.add(x.from.split('/')[0]) : true));
}

/** The check over a tree. `known` (default: the lists above; none for a fixture) lists the
 *  cycles and arrows tolerated until their move lands; a known entry that is gone is stale. */
export function checkImports(root, known = { cycles: KNOWN_CYCLES, arrows: KNOWN_ARROWS }) {
  const files = runtimeFiles(root);
  const graph = buildGraph(root, files);
  const cycleKey = (c) => [...new Set(c)].sort().join(' ');
  const knownCycles = new Set(known.cycles.map(cycleKey));
  const knownArrows = new Set(known.arrows.map(([a, b]) => `${a} ${b}`));
  const allCycles = findCycles(graph);
  const allArrows = findArrows(graph);
  const cycles = allCycles.filter((c) => !knownCycles.has(cycleKey(c)));
  const arrows = allArrows.filter((a) => !knownArrows.has(`${a.from} ${a.to}`));
  const foundCycles = new Set(allCycles.map(cycleKey));
  const foundArrows = new Set(allArrows.map((a) => `${a.from} ${a.to}`));
  const stale = [
    ...known.cycles.filter((c) => !foundCycles.has(cycleKey(c))).map((c) => `cycle ${c.join(', ')}`),
    ...known.arrows.filter(([a, b]) => !foundArrows.has(`${a} ${b}`)).map(([a, b]) => `${a} → ${b}`),
  ];
  return { ok: cycles.length === 0 && arrows.length === 0 && stale.length === 0, files: files.length, cycles, arrows, stale };
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const rootArg = args[args.indexOf('--root') + 1];
  const root = args.includes('--root') && rootArg ? resolve(rootArg) : fileURLToPath(new URL('..', import.meta.url));
  if (!existsSync(root)) {
    console.error(`check-imports: no such directory: ${root}`);
    process.exit(2);
  }
  const r = checkImports(root, args.includes('--root') ? { cycles: [], arrows: [] } : undefined);
  if (args.includes('--json')) console.log(JSON.stringify(r));
  else {
    for (const c of r.cycles) console.error(`import cycle: ${c.join(' → ')}`);
    for (const a of r.arrows) console.error(a.from === a.to ? a.why : `wrong-way import: ${a.from} imports ${a.to} (${a.why})`);
    for (const s of r.stale) console.error(`stale entry in KNOWN_CYCLES / KNOWN_ARROWS (scripts/check-imports.mjs): ${s} no longer exists: remove it`);
    if (r.arrows.length) console.error(`folder order, top first: ${LAYERS.join(' > ')}`);
    const tolerated = args.includes('--root') ? 0 : KNOWN_CYCLES.length + KNOWN_ARROWS.length;
    if (r.ok) console.log(`check-imports: ${r.files} runtime modules, no cycle, every import points down (${LAYERS.join(' > ')})${tolerated ? `; ${tolerated} known exception(s) being moved` : ''}`);
    else console.error(`check-imports: ${r.cycles.length} cycle(s), ${r.arrows.length} wrong-way import(s), ${r.stale.length} stale exception(s) in ${r.files} runtime modules`);
  }
  process.exit(r.ok ? 0 : 1);
}

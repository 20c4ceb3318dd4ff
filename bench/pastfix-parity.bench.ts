/**
 * One engine, two simulations (issue 37): what a user gets from `active-brain replay` of a
 * session after `active-brain index` of the sessions before it must be what `eval pastfix`
 * says that session got. For every project of <eval>/claude-code-real/projects: `eval pastfix`
 * in this process (its `replay_offers`: every offer of every session, both channels); then the
 * real CLI in a fresh home, session by session in the same time order — the earlier sessions
 * copied into a transcripts root (each file dated back to its last record: a copy written
 * minutes ago would be a still-open session whose last turn the indexer holds back), `index`,
 * then `replay <the session's own file> --json` (its folder's other sessions give the lineage,
 * as a user's project folder does). Offers compared on every key `replay --json` gives but the
 * file label. Target: 0 differences. Reads the eval set; writes only its work dir. Skipped
 * (with a note) when the set is absent.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { basename, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import { bySessionStart, evalPastfix, findProjects, sessionStart, PASTFIX_REGION } from '../eval/pastfix.js';
import { readTimedExchanges } from '../eval/replay-read.js';
import type { ReplayOffer } from '../eval/replay.js';
import { DEFAULT_SEED } from '../cli/commands/replay.js';

const BIN = fileURLToPath(new URL('../../bin/active-brain.js', import.meta.url));
/** Sessions per project in a --quick run. */
const QUICK_SESSIONS = 12;
/** Differences listed per project in the notes. */
const SAMPLE = 5;

/** An offer as both sides give it, without the file label (a path relative to what was replayed). */
function offerKey(o: ReplayOffer): string {
  return JSON.stringify([o.session, o.channel, o.turn, o.step, o.tool_use_id, o.trigger, o.type, o.confidence, o.handle, o.hook]);
}

const shownPastFix = (o: ReplayOffer) => o.channel === 'tool' && (o.hook === 'printed' || o.hook === 'would-fire');

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const about = 'issue 37: replay of each session after index of the earlier ones gives the offers eval pastfix gives (one engine)';
  const base = opts.evalDir ? join(opts.evalDir, 'claude-code-real', 'projects') : null;
  if (!base || !existsSync(base)) return { name: 'pastfix-parity', about, figures: [], notes: [], skipped: 'claude-code-real absent (set ACTIVE_BRAIN_EVAL_DIR or --eval-dir)' };
  const config = ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } });
  const embedder = await createEmbedder(config.embedding);
  const figures: Figure[] = [];
  const notes: string[] = [];
  let allSame = true;
  try {
    for (const name of readdirSync(base).sort()) {
      const dir = join(base, name);
      const project = findProjects(dir)[0];
      if (!project) continue;
      // The same order eval pastfix runs the sessions in.
      const ordered: Array<{ path: string; first: number; last: number }> = [];
      for (const path of project.sessions) {
        const read = await readTimedExchanges(path, { settleMs: config.daemon.settleMs });
        const times = [...read.exchanges.map((t) => t.settledAt), ...read.steps.map((s) => s.at)].filter((x) => Number.isFinite(x));
        ordered.push({ path, first: sessionStart(read), last: times.length ? Math.max(...times) : 0 });
      }
      ordered.sort(bySessionStart);
      const sessions = opts.quick ? ordered.slice(0, QUICK_SESSIONS) : ordered;

      const t0 = performance.now();
      const rep = await evalPastfix(dir, { config, embedder, seed: DEFAULT_SEED, workParent: opts.workDir, project: project.name });
      const evalMs = performance.now() - t0;
      const want = new Map<string, ReplayOffer[]>();
      for (const o of rep.replay_offers) want.set(o.session, [...(want.get(o.session) ?? []), o]);

      // The CLI, as a user would run it, in a home of its own.
      const work = join(opts.workDir, `parity-${name}`);
      rmSync(work, { recursive: true, force: true });
      const home = join(work, 'home');
      const root = join(work, 'projects');
      const history = join(root, project.name);
      mkdirSync(history, { recursive: true });
      const env: NodeJS.ProcessEnv = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: root, ACTIVE_BRAIN_MODEL_PATH: opts.modelPath };
      delete env.ACTIVE_BRAIN_STORE_URL;
      delete env.ACTIVE_BRAIN_CONFIG;
      const cli = (args: string[]) => {
        const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 10 * 60_000, maxBuffer: 256 * 1024 * 1024 });
        if (r.status !== 0) throw new Error(`active-brain ${args.join(' ')} exited ${r.status}: ${(r.stderr || '').slice(0, 400)}`);
        return r.stdout;
      };
      const t1 = performance.now();
      cli(['index', 'add', root, '--region', PASTFIX_REGION, '--kind', 'transcripts', '--scope', 'global', '--json']);
      let compared = 0;
      let same = 0;
      const onlyEval: string[] = [];
      const onlyReplay: string[] = [];
      let shownEval = 0;
      let shownSame = 0;
      for (const [i, s] of sessions.entries()) {
        if (i > 0) {
          const prev = sessions[i - 1];
          const dest = join(history, basename(prev.path));
          copyFileSync(prev.path, dest);
          const when = new Date(prev.last || Date.now() - 86_400_000);
          utimesSync(dest, when, when);
          cli(['index', '--json']);
        }
        const got = (JSON.parse(cli(['replay', s.path, '--json', '--seed', String(DEFAULT_SEED)])) as { offers: ReplayOffer[] }).offers;
        const session = basename(s.path, '.jsonl');
        const expected = want.get(session) ?? [];
        const g = new Map(got.map((o) => [offerKey(o), o]));
        const e = new Map(expected.map((o) => [offerKey(o), o]));
        compared += e.size;
        for (const [k, o] of e) {
          if (shownPastFix(o)) shownEval++;
          if (g.has(k)) {
            same++;
            if (shownPastFix(o)) shownSame++;
          } else onlyEval.push(`${session.slice(0, 8)} ${o.channel} turn ${o.turn} step ${o.step ?? '-'} ${o.handle} ${o.hook}`);
        }
        for (const [k, o] of g) if (!e.has(k)) onlyReplay.push(`${session.slice(0, 8)} ${o.channel} turn ${o.turn} step ${o.step ?? '-'} ${o.handle} ${o.hook}`);
      }
      const cliMs = performance.now() - t1;
      const ok = onlyEval.length === 0 && onlyReplay.length === 0;
      allSame &&= ok;
      figures.push(
        { metric: `${name}: sessions / offers eval pastfix gave (shown Past fixes)`, value: `${sessions.length} / ${compared} (${shownEval})` },
        { metric: `${name}: the same in replay after index (shown Past fixes)`, value: `${same} (${shownSame})` },
        { metric: `${name}: offers only in eval / only in replay`, value: `${onlyEval.length} / ${onlyReplay.length}`, target: '0 / 0', pass: ok },
        { metric: `${name}: eval pastfix / index + replay per session (whole run)`, value: `${Math.round(evalMs / 1000)} / ${Math.round(cliMs / 1000)}`, unit: 's' },
      );
      for (const d of onlyEval.slice(0, SAMPLE)) notes.push(`${name}: only in eval: ${d}`);
      for (const d of onlyReplay.slice(0, SAMPLE)) notes.push(`${name}: only in replay: ${d}`);
      rmSync(work, { recursive: true, force: true });
    }
  } finally {
    await embedder.dispose();
  }
  notes.unshift(
    `Procedure: eval pastfix <project> (in process) against the real CLI run the way a user's history grows: for each session in time order, the earlier ones copied into a transcripts root (dated back to their last record), \`active-brain index\`, then \`active-brain replay <session file> --json\`. Offers compared on session, channel, turn, step, tool_use_id, trigger, type, confidence, handle and hook.${opts.quick ? ` Quick run: the first ${QUICK_SESSIONS} sessions of each project.` : ''}`,
    allSame ? 'Every offer is the same on both sides.' : 'Differences are listed below (a sample per project).',
  );
  return { name: 'pastfix-parity', about, figures, notes };
}

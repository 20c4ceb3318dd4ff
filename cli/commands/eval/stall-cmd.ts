/**
 * `active-brain eval stall --openhands FILE`: the stall trigger over OpenHands trajectories
 * (eval/stall.ts) with the effective config's mode thresholds and session settings, plus
 * the constructed flow-repair cases; prints a table or, with --json, one JSON object. Reads
 * the JSONL file; writes only stdout.
 */
import { parseOpenHands, GOLD_MIN_RUN, type Trajectory } from '../../../eval/openhands.js';
import { evaluateStall, STALL_MATCH_SLACK, type StallReport, type StallScores } from '../../../eval/stall.js';
import { readDataset, runTriggerEval } from './trigger-eval-cmd.js';
import { round4 } from '../../../eval/metrics.js';
import type { Mode } from '../../../config/schema.js';

export const help = `usage: active-brain eval stall --openhands FILE [--json] [--model PATH] [--mode NAME] [--set key=value ...]

Stall detection on OpenHands trajectories (JSONL, one trajectory a line with "history").
Each trajectory is replayed as one session through the daemon's session state and stall
trigger: one exchange per agent tool action (thought + tool call as the assistant side,
its observation in the exchange text, no human text).
Gold loops: runs of >= ${GOLD_MIN_RUN} consecutive near-identical agent actions — same action type
and normalized args (read/edit/write: the path; run: the command; numbers, whitespace and
paths normalized; see eval/openhands.ts). A firing inside a run or within ${STALL_MATCH_SLACK} step after
it hits the run (each run counted once); other firings are false. Also reported: the same
with tool-call evidence withheld (vector_only), and constructed flow-repair cases (the
human restates an unmet instruction while the assistant varies: the guard must hold; a
control where the assistant repeats too must still fire).

Options:
  --openhands FILE  OpenHands output JSONL (e.g. ../shared/eval/openhands/msb_output.jsonl)
  --model PATH      a local transformers.js model folder (default: the configured model)
  --mode NAME       whose thresholds to use (default: "default", else the first mode)
  --json            one JSON object: {"trajectories","precision","recall","f1", "runs", …}
  --set key=value   config override, e.g. --set modes.default.stallZ=2.5`;

function r(s: StallScores): Record<string, number> {
  return { precision: round4(s.precision), recall: round4(s.recall), f1: round4(s.f1), runs: s.runs, hit: s.hit, firings: s.firings, false_firings: s.falseFirings, redundant: s.redundant };
}

export function reportJson(rep: StallReport, modeName: string, mode: Mode): Record<string, unknown> {
  return {
    trajectories: rep.trajectories,
    precision: round4(rep.precision),
    recall: round4(rep.recall),
    f1: round4(rep.f1),
    runs: rep.runs,
    hit: rep.hit,
    firings: rep.firings,
    false_firings: rep.falseFirings,
    redundant: rep.redundant,
    steps: rep.steps,
    vector_only: r(rep.vector_only),
    flow_repair: rep.flow_repair,
    model: rep.model,
    mode: modeName,
    thresholds: { stallZ: mode.stallZ, stallMaxQuantile: mode.stallMaxQuantile, stallWindow: mode.stallWindow },
  };
}

export function reportText(rep: StallReport): string {
  const row = (name: string, s: StallScores) =>
    `${name.padEnd(20)} ${s.precision.toFixed(3).padStart(9)} ${s.recall.toFixed(3).padStart(7)} ${s.f1.toFixed(3).padStart(6)} ${`${s.hit}/${s.runs}`.padStart(7)} ${String(s.falseFirings).padStart(6)}`;
  const fr = rep.flow_repair;
  return [
    `OpenHands stall: ${rep.trajectories} trajectories, ${rep.steps} agent steps, ${rep.runs} gold loops (model ${rep.model})`,
    '',
    `${'detector'.padEnd(20)} ${'precision'.padStart(9)} ${'recall'.padStart(7)} ${'f1'.padStart(6)} ${'hit'.padStart(7)} ${'false'.padStart(6)}`,
    row('stall trigger', rep),
    row('vectors only', rep.vector_only),
    '',
    `flow-repair: ${fr.cases} constructed cases — guard held ${fr.guard_held}/${fr.cases} (engaged ${fr.guard_engaged}), control fired ${fr.control_fired}/${fr.cases}`,
    'Targets: recall >= 0.8 at precision >= 0.6.',
  ].join('\n');
}

export function readOpenHands(path: string): Trajectory[] {
  return readDataset(path, 'an OpenHands output', parseOpenHands);
}

export function run(argv: string[]): Promise<number> {
  return runTriggerEval(argv, {
    command: 'eval stall',
    help,
    flag: 'openhands',
    fileWhat: 'OpenHands output JSONL',
    unit: 'trajectories',
    unitOne: 'trajectory',
    read: readOpenHands,
    evaluate: (ts, embedder, mode, session, onItem) => evaluateStall(ts, embedder, mode, session, onItem),
    json: reportJson,
    text: reportText,
  });
}

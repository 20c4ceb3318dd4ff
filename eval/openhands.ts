/**
 * OpenHands trajectories (../shared/eval/openhands/*.jsonl: one trajectory a line with
 * `instance_id` and `history` events {source, action, args, observation, content, …}) turned
 * into agent steps for the stall evaluation (eval/stall.ts), and the gold loops: runs of
 * ≥ GOLD_MIN_RUN consecutive near-identical agent actions. Pure.
 *
 * Gold definition (deterministic): a step is one agent tool action (source "agent", an
 * `action` other than the bookkeeping ones in NON_TOOL_ACTIONS) with the observations that
 * follow it. Two consecutive steps are near-identical when their *gold keys* are equal:
 *   read / edit / write  →  action + normalized path   (view ranges, edit contents ignored)
 *   run / run_ipython    →  action + normalized command / code
 *   anything else        →  action + normalized JSON of its args (thoughts dropped)
 * Normalization: lowercase, whitespace collapsed, every number → #, paths without `./`,
 * a trailing `/`, or the workspace prefix `/workspace/<repo>/`.
 */

import { isObj, type Obj } from '../shared/json-object.js';

/** Actions that are bookkeeping, not work: they neither make nor break a run. */
export const NON_TOOL_ACTIONS = new Set(['system', 'think', 'recall', 'condensation', 'change_agent_state', 'null']);
/** A gold loop is at least this many consecutive near-identical actions. */
export const GOLD_MIN_RUN = 3;
/** Characters of an observation kept as the step's text. */
const OBSERVATION_CHARS = 600;
/** Characters of a thought kept as the step's text. */
const THOUGHT_CHARS = 400;

export interface AgentStep {
  /** Index of the action event in `history`. */
  event: number;
  action: string;
  /** Claude Code–style tool-call summary, e.g. `Read: /path` or `Bash: make`. */
  toolCall: string;
  thought: string;
  observation: string;
  /** The observation reports a failure. */
  isError: boolean;
  goldKey: string;
}

export interface Trajectory {
  id: string;
  steps: AgentStep[];
}

export interface GoldRun {
  /** First and last step index (inclusive) of the run. */
  start: number;
  end: number;
  key: string;
}

const str = (x: unknown): string => (typeof x === 'string' ? x : '');

export function normalizeArg(s: string): string {
  return s
    .toLowerCase()
    .replace(/\/workspace\/[^/\s"']+\//g, '')
    .replace(/\d+(\.\d+)?/g, '#')
    .replace(/(^|[\s"'=])\.\//g, '$1')
    .replace(/([^\s/])\/+(?=\s|$|["'])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

function goldKey(action: string, args: Obj): string {
  switch (action) {
    case 'read':
    case 'edit':
    case 'write':
      return `${action} ${normalizeArg(str(args.path))}`;
    case 'run':
      return `${action} ${normalizeArg(str(args.command))}`;
    case 'run_ipython':
      return `${action} ${normalizeArg(str(args.code))}`;
    default: {
      const rest = Object.fromEntries(Object.entries(args).filter(([k]) => k !== 'thought' && k !== 'final_thought').sort(([a], [b]) => a.localeCompare(b)));
      return `${action} ${normalizeArg(JSON.stringify(rest))}`;
    }
  }
}

function toolCall(action: string, args: Obj): string {
  switch (action) {
    case 'read':
      return `Read: ${str(args.path)}`;
    case 'edit':
      return `Edit: ${str(args.path)}`;
    case 'write':
      return `Write: ${str(args.path)}`;
    case 'run':
      return `Bash: ${str(args.command)}`;
    case 'run_ipython':
      return `IPython: ${str(args.code)}`;
    case 'browse':
    case 'browse_interactive':
      return `Browse: ${str(args.url) || str(args.browser_actions)}`;
    default:
      return action;
  }
}

function looksLikeError(observation: string, content: string, ev: Obj): boolean {
  if (observation === 'error') return true;
  const t = content.trimStart();
  if (/^ERROR\b/i.test(t) || /^bash: .*(not found|no such file)/i.test(t)) return true;
  const extras = isObj(ev.extras) ? ev.extras : null;
  const meta = extras && isObj(extras.metadata) ? extras.metadata : null;
  const code = meta ? meta.exit_code : extras ? extras.exit_code : undefined;
  return typeof code === 'number' && code !== 0 && code !== -1;
}

/** One trajectory line → its agent steps (unknown events skipped). */
export function parseTrajectory(raw: unknown): Trajectory {
  if (!isObj(raw) || !Array.isArray(raw.history)) throw new Error('expected {instance_id, history: [...]}');
  const steps: AgentStep[] = [];
  raw.history.forEach((ev, i) => {
    if (!isObj(ev)) return;
    const action = str(ev.action);
    const args = isObj(ev.args) ? ev.args : {};
    if (action && ev.source === 'agent' && !NON_TOOL_ACTIONS.has(action)) {
      steps.push({
        event: i,
        action,
        toolCall: toolCall(action, args),
        thought: str(args.thought).slice(0, THOUGHT_CHARS),
        observation: '',
        isError: false,
        goldKey: goldKey(action, args),
      });
    } else if (!action && typeof ev.observation === 'string' && steps.length > 0) {
      const last = steps[steps.length - 1];
      const content = str(ev.content) || str(ev.message);
      if (last.observation.length < OBSERVATION_CHARS) last.observation = (last.observation ? last.observation + '\n' : '') + content.slice(0, OBSERVATION_CHARS);
      if (looksLikeError(ev.observation, content, ev)) last.isError = true;
    }
  });
  return { id: str(raw.instance_id) || `trajectory-${steps.length}`, steps };
}

/** Parse a JSONL file's text; a malformed line is an error naming its line number. */
export function parseOpenHands(text: string): Trajectory[] {
  const out: Trajectory[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new Error(`line ${i + 1}: not JSON (${(e as Error).message})`);
    }
    try {
      out.push(parseTrajectory(v));
    } catch (e) {
      throw new Error(`line ${i + 1}: ${(e as Error).message}`);
    }
  });
  return out;
}

/** Maximal runs of ≥ minRun consecutive steps with the same gold key. */
export function goldRuns(steps: readonly AgentStep[], minRun = GOLD_MIN_RUN): GoldRun[] {
  const runs: GoldRun[] = [];
  let start = 0;
  for (let i = 1; i <= steps.length; i++) {
    if (i < steps.length && steps[i].goldKey === steps[start].goldKey) continue;
    if (i - start >= minRun) runs.push({ start, end: i - 1, key: steps[start].goldKey });
    start = i;
  }
  return runs;
}

/**
 * Hand-written log lines for the per-channel rollout tests, in the records' real formats:
 * hook runs (logs/hook.jsonl) and daemon decisions (logs/daemon.jsonl) of the prompt channel
 * as written before channels existed (no `channel` field), and of the tool channel with the
 * contract's fields (`channel`, `event`, `sig`, `tool_use_id`, `step`). `schemaCheck` holds
 * every line to the committed JSON Schema: whole when the schema knows `channel`, else with
 * the contract's new fields set aside (the rest must still be valid).
 */
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSchema, validate } from '../helpers/json-schema.js';

type Rec = Record<string, unknown>;

const CONTRACT_FIELDS = ['channel', 'event', 'sig', 'tool_use_id', 'step'];

/** Schema errors of a line ([] = valid). */
export function schemaCheck(name: 'hook-record' | 'daemon-decision', rec: Rec): string[] {
  const schema = loadSchema(name);
  const knowsChannel = Object.hasOwn((schema.properties ?? {}) as Rec, 'channel');
  if (knowsChannel) return validate(schema, rec);
  const base = Object.fromEntries(Object.entries(rec).filter(([k]) => !CONTRACT_FIELDS.includes(k)));
  return validate(schema, base);
}

/** A prompt-channel hook run in the pre-channel format (no `channel`, no `event`). */
export function promptRun(i: number, over: Rec = {}): Rec {
  const fired = over.outcome === 'would-fire' || over.outcome === 'print';
  return {
    ts: Date.now(), session: `s${i % 3}`, outcome: 'silent', reason: fired ? (over.outcome === 'print' ? 'printed' : 'would-fire') : 'no-offer',
    latency_ms: 5, boot_ms: 30, mode: 'default', mode_state: 'soak', turn: i + 1,
    ...(fired ? { offer_id: `p${i}`, handle: `notes/n.md#${i}`, type: 'analogous', confidence: 0.7, bytes: 120 } : {}),
    exit: 0, ...over,
  };
}

/** A tool-channel hook run (PostToolUseFailure by default) at tool call `t<i>` of its session. */
export function toolRun(i: number, over: Rec = {}): Rec {
  const fired = over.outcome === 'would-fire' || over.outcome === 'print';
  const session = (over.session as string | undefined) ?? `s${i % 3}`;
  return {
    ts: Date.now(), session, outcome: 'silent', reason: fired ? (over.outcome === 'print' ? 'printed' : 'would-fire') : 'no-offer',
    latency_ms: 8, boot_ms: 30, mode: 'default', mode_state: 'soak',
    channel: 'tool', event: 'PostToolUseFailure', sig: 'a1b2c3d4e5f607', tool_use_id: `toolu_${session}_${i}`, step: i + 1,
    ...(fired ? { offer_id: `fix-a1b2c3d4e5f607-${i}`, handle: `sessions/p/s.jsonl#${i}`, type: 'past-fix', confidence: 0.85, bytes: 140 } : {}),
    exit: 0, ...over,
  };
}

/** A daemon decision for exchange `u<i>` in the pre-channel format. */
export function promptDecision(i: number, over: Rec = {}): Rec {
  const fired = over.would_fire === true;
  return {
    type: 'decision', ts: Date.now(), sessionId: `s${i % 3}`, turn: i, exchangeUuid: `u${i}`, offset: i * 100, mode: 'default', mode_state: 'soak',
    worker: false, sidechain: false, seed: false, prompt_only: false, injected: false, trigger: fired ? 'drift' : null, trigger_values: {}, gates: [],
    would_fire: fired, silence: fired ? null : 'no-trigger',
    offer: fired ? { id: `p${i}`, chunkId: i, handle: `notes/n.md#${i}`, type: 'analogous', confidence: 0.7, region: 'notes', wildcard: false, reasoned: false } : null,
    sufficiency: null, candidates: 0, latency_ms: {}, provisional: false, ...over,
  };
}

/** A daemon decision at tool step `i + 1` (channel tool). */
export function toolDecision(i: number, over: Rec = {}): Rec {
  const fired = over.would_fire === true;
  return {
    type: 'decision', ts: Date.now(), sessionId: `s${i % 3}`, turn: 0, exchangeUuid: `u-tool-${i}`, offset: i * 100, mode: 'default', mode_state: 'soak',
    worker: false, sidechain: false, seed: false, prompt_only: false, injected: false, trigger: fired ? 'error' : null, trigger_values: {}, gates: [],
    would_fire: fired, silence: fired ? null : 'no-fix',
    offer: fired ? { id: `tool-off-${i}`, chunkId: i, handle: `sessions/p/s.jsonl#${i}`, type: 'past-fix', confidence: 0.8, region: 'sessions', wildcard: false, reasoned: false } : null,
    sufficiency: null, candidates: 0, latency_ms: {}, provisional: false,
    channel: 'tool', step: i + 1, tool_use_id: `toolu_s${i % 3}_${i}`, sig: 'a1b2c3d4e5f607', ...over,
  };
}

export function label(i: number, useful: boolean, over: Rec = {}): Rec {
  return { ts: Date.now(), offer_id: `o${i}`, session: `s${i % 3}`, handle: `notes/n.md#${i}`, type: 'analogous', mode: 'default', useful, ...over };
}

/** A state dir with these log lines written (every line checked against its schema). */
export function homeWith(lines: { hook?: Rec[]; decisions?: Rec[]; labels?: Rec[] }, tag = 'ab-chan-'): string {
  const home = mkdtempSync(join(tmpdir(), tag));
  mkdirSync(join(home, 'logs'), { recursive: true });
  writeLines(home, lines);
  return home;
}

export function writeLines(home: string, lines: { hook?: Rec[]; decisions?: Rec[]; labels?: Rec[] }): void {
  for (const r of lines.hook ?? []) {
    const errs = schemaCheck('hook-record', r);
    if (errs.length) throw new Error(`fixture hook line not schema-valid: ${errs.join('; ')}`);
  }
  for (const r of lines.decisions ?? []) {
    const errs = schemaCheck('daemon-decision', r);
    if (errs.length) throw new Error(`fixture decision line not schema-valid: ${errs.join('; ')}`);
  }
  const jl = (xs: Rec[]) => xs.map((x) => JSON.stringify(x)).join('\n') + '\n';
  if (lines.hook?.length) appendFileSync(join(home, 'logs', 'hook.jsonl'), jl(lines.hook));
  if (lines.decisions?.length) appendFileSync(join(home, 'logs', 'daemon.jsonl'), jl(lines.decisions));
  if (lines.labels?.length) appendFileSync(join(home, 'labels.jsonl'), jl(lines.labels));
}

export function writeConfig(home: string, config: Rec): void {
  writeFileSync(join(home, 'config.json'), JSON.stringify(config));
}

export const range = (n: number) => Array.from({ length: n }, (_, i) => i);

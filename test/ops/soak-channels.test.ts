/**
 * soak report per channel over hand-written hook and daemon log lines (test/ops/
 * channel-fixtures.ts): each channel judged on its own records, with a control where the
 * same figures pass; records written before channels existed count as prompt; tool-step
 * decisions never count as exchanges; a would-fire in hook.jsonl counts on its channel; a
 * record never counts on two channels (property test over random mixes).
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema, type Config } from '../../config/schema.js';
import { soakReport, type SoakReport } from '../../ops/soak-report.js';
import { hookFiguresByChannel, promptFigures, toolFigures } from '../../ops/soak-figures.js';
import { channelOf, type DecisionLine, type HookLine } from '../../ops/channel-records.js';
import { MIN_TOOL_STEPS_FOR_RATE } from '../../ops/soak-gates.js';
import { homeWith, label, promptDecision, promptRun, range, schemaCheck, toolDecision, toolRun } from './channel-fixtures.js';

const config = ConfigSchema.parse({});
const gate = (r: SoakReport, name: string) => {
  const g = r.gates.find((x) => x.name === name);
  if (!g) throw new Error(`no gate ${name} in ${r.gates.map((x) => x.name).join(', ')}`);
  return g;
};
const report = (home: string, c: Config = config, opts: Parameters<typeof soakReport>[1] = {}) =>
  soakReport(c, { env: { ACTIVE_BRAIN_HOME: home }, sinceMs: 0, ...opts });

/** Both channels with figures inside their gates: 3/60 prompt offers, 6/600 tool offers,
 *  50 labels per channel at 80% useful. */
function passingLines() {
  return {
    hook: [
      ...range(60).map((i) => promptRun(i, i % 20 === 0 ? { outcome: 'would-fire' } : {})),
      ...range(MIN_TOOL_STEPS_FOR_RATE + 100).map((i) => toolRun(i, i % 100 === 0 ? { outcome: 'would-fire' } : { event: i % 2 ? 'PostToolUse' : 'PostToolUseFailure' })),
    ],
    decisions: [
      ...range(100).map((i) => promptDecision(i, i % 20 === 0 ? { would_fire: true } : {})),
      // The daemon's tool-step decisions, two in three with an offer: counted as exchanges,
      // they would push the prompt rate far out of its band.
      ...range(300).map((i) => toolDecision(i, i % 3 ? { would_fire: true } : {})),
    ],
    labels: [
      // prompt labels as written before channels existed (no `channel`) …
      ...range(50).map((i) => label(i, i % 5 !== 0)),
      // … and tool labels.
      ...range(50).map((i) => label(1000 + i, i % 5 !== 0, { channel: 'tool', type: 'past-fix', step: i + 1, tool_use_id: `toolu_${i}`, sig: 'a1b2c3d4e5f607' })),
    ],
  };
}

describe('soak report per channel', () => {
  it('control: both channels pass their own gates on figures inside them; names carry the channel', () => {
    const r = report(homeWith(passingLines()));
    for (const c of ['prompt', 'tool']) {
      expect(gate(r, `${c}.hook-speed`).pass).toBe(true);
      expect(gate(r, `${c}.hook-clean-exit`).pass).toBe(true);
      expect(gate(r, `${c}.would-fire-rate:default`).pass).toBe(true);
      expect(gate(r, `${c}.usefulness`).pass).toBe(true);
    }
    expect(gate(r, 'prompt.would-fire-rate:default').figure).toContain('5/100');
    expect(gate(r, 'tool.would-fire-rate:default').figure).toContain('6/600');
    expect(gate(r, 'tool.would-fire-rate:default').figure).toContain('per 100 tool events');
    // Shared gates once, without a prefix (no daemon here: liveness fails, for both channels).
    expect(r.shared).toEqual(['zero-store-writes', 'liveness', 'honest-process-state', 'transcript-availability']);
    expect(r.gates.filter((g) => g.name === 'liveness')).toHaveLength(1);
    expect(r.channels.prompt.pass).toBe(false);
    expect(r.channels.prompt.gates.every((g) => g.pass)).toBe(true);
    expect(r.channels.tool.rate).toMatchObject({ unit: 'tool events', opportunities: 600, would_fire: 6, daemon_tool_steps: 300, daemon_would_fire: 200 });
    expect(r.channels.prompt.rate).toMatchObject({ unit: 'exchanges', opportunities: 100, would_fire: 5 });
    expect(r.channels.prompt.hook.runs).toBe(60);
    expect(r.channels.tool.hook.runs).toBe(600);
    expect(r.figures).toMatchObject({ exchanges: 100, would_fire: 5, tool_steps: 600, tool_would_fire: 6 });
    expect(r.figures.hook.runs).toBe(660);
    expect(r.channels.prompt.labels).toEqual({ n: 50, useful: 40 });
    expect(r.channels.tool.labels).toEqual({ n: 50, useful: 40 });
  });

  it('a slow or failing tool hook fails only the tool gates (and the reverse)', () => {
    const slow = passingLines();
    slow.hook = slow.hook.map((h) => (h.channel === 'tool' ? { ...h, latency_ms: 200 } : h));
    const r1 = report(homeWith(slow));
    expect(gate(r1, 'tool.hook-speed').pass).toBe(false);
    expect(gate(r1, 'prompt.hook-speed').pass).toBe(true);

    const failing = passingLines();
    failing.hook.push(promptRun(999, { reason: 'error' }));
    const r2 = report(homeWith(failing));
    expect(gate(r2, 'prompt.hook-clean-exit').pass).toBe(false);
    expect(gate(r2, 'tool.hook-clean-exit').pass).toBe(true);
  });

  it('tool-channel usefulness counts only tool labels: 60% there fails while prompt passes', () => {
    const l = passingLines();
    l.labels = [...l.labels.filter((x) => x.channel !== 'tool'), ...range(50).map((i) => label(2000 + i, i < 30, { channel: 'tool' }))];
    const r = report(homeWith(l));
    expect(gate(r, 'tool.usefulness')).toMatchObject({ pass: false, figure: expect.stringContaining('30/50') });
    expect(gate(r, 'prompt.usefulness').pass).toBe(true);
  });

  it('records without a channel are the prompt channel: the tool channel has no runs', () => {
    const r = report(homeWith({ hook: range(60).map((i) => promptRun(i)), decisions: range(60).map((i) => promptDecision(i)) }));
    expect(gate(r, 'prompt.hook-speed').pass).toBe(true);
    expect(gate(r, 'tool.hook-speed')).toMatchObject({ pass: false, figure: expect.stringMatching(/no PostToolUseFailure \/ PostToolUse hook runs/) });
    expect(gate(r, 'tool.would-fire-rate')).toMatchObject({ pass: false, figure: 'no tool events observed yet' });
    expect(r.channels.prompt.hook.runs).toBe(60);
    expect(r.figures.exchanges).toBe(60);
  });

  it('a hook record with an event but no channel takes the event\'s channel', () => {
    const r = report(homeWith({ hook: [promptRun(0, { event: 'PostToolUse' }), promptRun(1, { event: 'UserPromptSubmit' })] }));
    expect(r.channels.tool.hook.runs).toBe(1);
    expect(r.channels.prompt.hook.runs).toBe(1);
  });

  it('a would-fire in hook.jsonl is counted as such on its channel; one tool call met twice is one step', () => {
    const hook = [
      toolRun(0, { outcome: 'would-fire' }),
      toolRun(0, { outcome: 'silent', reason: 'repeat' }), // the same call, a second registration of the hook
      toolRun(1),
      promptRun(0),
    ];
    const r = report(homeWith({ hook }));
    expect(r.figures.hook.by_outcome['would-fire']).toBe(1);
    expect(r.channels.tool.hook.by_outcome['would-fire']).toBe(1);
    expect(r.channels.prompt.hook.by_outcome['would-fire']).toBeUndefined();
    expect(r.channels.tool.rate).toMatchObject({ opportunities: 2, would_fire: 1 });
    expect(r.channels.tool.by_type).toEqual({ 'past-fix': 1 });
    expect(r.channels.tool.hook.runs).toBe(3);
  });

  it('a record naming an unknown channel is on no channel, counted as a bad line', () => {
    const home = homeWith({ hook: [promptRun(0)] }, 'ab-chan-unk-');
    // Written as is: a malformed record is the point (no schema would accept it).
    appendFileSync(join(home, 'logs', 'hook.jsonl'), JSON.stringify(promptRun(1, { channel: 'fax' })) + '\n');
    const r = report(home);
    expect(r.figures.hook.runs).toBe(2);
    expect(r.figures.hook.unknown_channel).toBe(1);
    expect(r.channels.prompt.hook.runs + r.channels.tool.hook.runs).toBe(1);
    expect(r.figures.bad_log_lines).toBe(1);
  });

  it('tool events of sessions without a mode, or with the tool channel off, have no rate', () => {
    const hook = [
      ...range(10).map((i) => toolRun(i)),
      ...range(5).map((i) => toolRun(100 + i, { mode: null, mode_state: null, reason: 'no-mode' })),
      ...range(5).map((i) => toolRun(200 + i, { mode: 'quiet', mode_state: 'off', reason: 'mode-off' })),
    ];
    const c = ConfigSchema.parse({ modes: { default: {}, quiet: { cwdGlobs: ['/q/**'], tool: { state: 'off' } } } });
    const r = report(homeWith({ hook }), c);
    expect(r.gates.filter((g) => g.name.startsWith('tool.would-fire-rate')).map((g) => g.name)).toEqual(['tool.would-fire-rate:default']);
    expect(r.channels.tool.rate.opportunities).toBe(10);
  });

  it('a channel off in every mode is not judged, unless asked for', () => {
    const c = ConfigSchema.parse({ modes: { default: { tool: { state: 'off' } } } });
    const home = homeWith(passingLines());
    const r = report(home, c);
    expect(r.channels.tool).toMatchObject({ judged: false, pass: false, states: { default: 'off' } });
    expect(r.gates.some((g) => g.name.startsWith('tool.'))).toBe(false);
    const asked = report(home, c, { channels: ['tool'] });
    expect(asked.channels.tool.judged).toBe(true);
    expect(asked.gates.some((g) => g.name.startsWith('prompt.'))).toBe(false);
    expect(gate(asked, 'tool.usefulness').pass).toBe(true);
  });

  it('--mode scopes each channel\'s rate and labels', () => {
    const c = ConfigSchema.parse({ modes: { default: {}, work: { cwdGlobs: ['/w/**'] } } });
    const l = passingLines();
    l.labels.push(label(5000, false, { channel: 'tool', mode: 'work' }));
    const r = report(homeWith(l), c, { mode: 'work' });
    expect(gate(r, 'tool.would-fire-rate:work').figure).toContain('0/0');
    expect(gate(r, 'tool.usefulness:work').figure).toContain('0/1');
    expect(r.channels.tool.states).toEqual({ work: 'soak' });
  });

  it('the fixtures are schema-valid lines (control: a broken one is refused)', () => {
    expect(schemaCheck('hook-record', toolRun(1, { outcome: 'would-fire' }))).toEqual([]);
    expect(schemaCheck('daemon-decision', toolDecision(1, { would_fire: true }))).toEqual([]);
    expect(schemaCheck('hook-record', toolRun(1, { outcome: 'loud' }))).not.toEqual([]);
  });
});

// ---------- property: a record is counted on exactly one channel ----------

const hookArb = fc.record({
  channel: fc.constantFrom(undefined, 'prompt', 'tool', 'fax'),
  event: fc.constantFrom(undefined, 'UserPromptSubmit', 'PostToolUse', 'PostToolUseFailure', 'Stop'),
  outcome: fc.constantFrom('print', 'silent', 'would-fire'),
  reason: fc.constantFrom('no-offer', 'error', 'deadline', 'would-fire', 'mode-off'),
  latency: fc.integer({ min: 0, max: 300 }),
  session: fc.constantFrom('a', 'b', 'c'),
  call: fc.integer({ min: 0, max: 40 }),
});
/** A session's mode follows from its cwd: one per session (c matches none). */
const MODE_OF: Record<string, string | null> = { a: 'default', b: 'work', c: null };

type Gen<A> = A extends fc.Arbitrary<infer T> ? T : never;

function hookLine(h: Gen<typeof hookArb>): HookLine {
  const mode = MODE_OF[h.session];
  const r: Record<string, unknown> = {
    ts: 1, session: h.session, outcome: h.outcome, reason: h.reason, latency_ms: h.latency, boot_ms: 1, mode, mode_state: mode ? 'soak' : null,
    tool_use_id: `t${h.call}`, exit: 0, offer_id: `o${h.call}`, handle: `n#${h.call}`, type: 'past-fix',
  };
  if (h.channel !== undefined) r.channel = h.channel;
  if (h.event !== undefined) r.event = h.event;
  return r as unknown as HookLine;
}

const decisionArb = fc.record({
  tool: fc.boolean(),
  i: fc.integer({ min: 0, max: 60 }),
  fired: fc.boolean(),
  provisional: fc.boolean(),
});
const decisionLine = (d: Gen<typeof decisionArb>) =>
  (d.tool ? toolDecision(d.i, { would_fire: d.fired, provisional: d.provisional }) : promptDecision(d.i, { would_fire: d.fired, provisional: d.provisional })) as unknown as DecisionLine;

describe('property: random log mixes never count one record on two channels', () => {
  it('hook runs: the channels and the unknown ones add up to every run, each where channelOf puts it', () => {
    fc.assert(fc.property(fc.array(hookArb, { maxLength: 80 }), (hs) => {
      const lines = hs.map(hookLine);
      const f = hookFiguresByChannel(lines);
      const want = { prompt: 0, tool: 0, none: 0 };
      for (const l of lines) want[channelOf(l) ?? 'none']++;
      return f.channels.prompt.runs === want.prompt && f.channels.tool.runs === want.tool && f.unknownChannel === want.none
        && f.channels.prompt.runs + f.channels.tool.runs + f.unknownChannel === lines.length;
    }));
  });

  it('adding the other channel\'s records (hook and daemon, interleaved) changes none of a channel\'s figures', () => {
    fc.assert(fc.property(fc.array(hookArb, { maxLength: 60 }), fc.array(decisionArb, { maxLength: 60 }), fc.integer(), (hs, ds, seed) => {
      const hook = hs.map(hookLine);
      const dec = ds.map(decisionLine);
      const onlyPromptHook = hook.filter((l) => channelOf(l) === 'prompt');
      const onlyToolHook = hook.filter((l) => channelOf(l) === 'tool');
      const onlyPromptDec = dec.filter((d) => channelOf(d) === 'prompt');
      const onlyToolDec = dec.filter((d) => channelOf(d) === 'tool');
      // A deterministic shuffle of the whole mix: order never matters either.
      const shuffle = <T,>(xs: T[]) => xs.map((x, i) => ({ x, k: Math.imul(i + 1, seed | 1) >>> 0 })).sort((a, b) => a.k - b.k).map((p) => p.x);
      const mixedHook = shuffle(hook);
      const mixedDec = shuffle(dec);
      // Figures compared whatever the order they were met in (modes and handles sorted).
      const strip = <T extends { offered: Map<string, unknown>; rates: Array<{ mode: string }> }>(x: T) => ({
        ...x, offered: [...x.offered.keys()].sort(), rates: [...x.rates].sort((a, b) => a.mode.localeCompare(b.mode)),
      });
      expect(hookFiguresByChannel(mixedHook).channels.prompt.runs).toBe(hookFiguresByChannel(onlyPromptHook).channels.prompt.runs);
      expect(strip(promptFigures(mixedDec))).toEqual(strip(promptFigures(onlyPromptDec)));
      expect(strip(toolFigures(mixedHook, mixedDec))).toEqual(strip(toolFigures(onlyToolHook, onlyToolDec)));
      const p = promptFigures(mixedDec);
      const t = toolFigures(mixedHook, mixedDec);
      // Exchanges are prompt decisions only; tool steps are tool hook runs only.
      expect(p.exchanges).toBe(onlyPromptDec.filter((d) => !d.provisional).length);
      expect(t.toolSteps).toBeLessThanOrEqual(onlyToolHook.length);
      expect(t.wouldFire).toBeLessThanOrEqual(t.toolSteps);
      return true;
    }), { numRuns: 200 });
  });
});

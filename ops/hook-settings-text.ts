/**
 * Removing our hook entries from a settings file's TEXT, keeping every other byte as the user
 * wrote it (indentation, key order, compact or spread arrays, trailing newline). Used by
 * `uninstall` when the file changed since `install` wrote it, so an exact restore of the
 * original is not possible (ops/hook-install-record.ts). A small JSON reader records where each
 * value starts and ends; the entries, groups, event keys and `hooks` key that
 * withHookRemoved (ops/hook-install.ts) drops are cut out with their separators. Pure. The caller
 * checks the result parses to exactly what withHookRemoved gives.
 */
import { HOOK_EVENTS } from '../shared/vocabulary.js';
import { isOurEntry } from './hook-install.js';

interface Span {
  start: number;
  end: number;
}
interface Prop extends Span {
  key: string;
  value: JsonNode;
}
type JsonNode =
  | (Span & { kind: 'object'; props: Prop[] })
  | (Span & { kind: 'array'; items: JsonNode[] })
  | (Span & { kind: 'scalar' });

const WS = /\s/;

/** Positions of every value in a valid JSON text (throws on what it cannot read). */
export function parseSpans(text: string): JsonNode {
  let i = 0;
  const ws = () => {
    while (i < text.length && WS.test(text[i])) i++;
  };
  const str = (): string => {
    const s = i;
    i++; // opening quote
    while (text[i] !== '"') {
      if (i >= text.length) throw new Error('unterminated string');
      i += text[i] === '\\' ? 2 : 1;
    }
    i++;
    return JSON.parse(text.slice(s, i)) as string;
  };
  const value = (): JsonNode => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const props: Prop[] = [];
      ws();
      if (text[i] === '}') { i++; return { kind: 'object', start, end: i, props }; }
      for (;;) {
        ws();
        const ps = i;
        const key = str();
        ws();
        if (text[i++] !== ':') throw new Error('expected :');
        const v = value();
        props.push({ key, start: ps, end: v.end, value: v });
        ws();
        const d = text[i++];
        if (d === '}') return { kind: 'object', start, end: i, props };
        if (d !== ',') throw new Error('expected , or }');
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') { i++; return { kind: 'array', start, end: i, items }; }
      for (;;) {
        items.push(value());
        ws();
        const d = text[i++];
        if (d === ']') return { kind: 'array', start, end: i, items };
        if (d !== ',') throw new Error('expected , or ]');
      }
    }
    if (c === '"') {
      str();
      return { kind: 'scalar', start, end: i };
    }
    while (i < text.length && !/[\s,\]}]/.test(text[i])) i++;
    if (i === start) throw new Error(`unexpected ${c ?? 'end'} at ${i}`);
    return { kind: 'scalar', start, end: i };
  };
  const root = value();
  ws();
  if (i !== text.length) throw new Error('trailing text');
  return root;
}

/** Cuts for removing `drop` (indices) from a list of spans, each run of dropped elements with
 *  the separator that joined it to the kept ones. */
export function listCuts(els: Span[], drop: Set<number>): Span[] {
  if (drop.size === 0) return [];
  if (drop.size === els.length) return [{ start: els[0].start, end: els[els.length - 1].end }];
  const cuts: Span[] = [];
  let k = 0;
  while (k < els.length) {
    if (!drop.has(k)) { k++; continue; }
    let e = k;
    while (e + 1 < els.length && drop.has(e + 1)) e++;
    // Followed by a kept element: cut up to it (the separator after the run goes too);
    // at the end: cut from the kept element before it (the separator before the run goes).
    cuts.push(e + 1 < els.length ? { start: els[k].start, end: els[e + 1].start } : { start: els[k - 1].end, end: els[e].end });
    k = e + 1;
  }
  return cuts;
}

const prop = (n: JsonNode, key: string) => (n.kind === 'object' ? n.props.find((p) => p.key === key) : undefined);

/** The text without our entries (as withHookRemoved drops them), or null when there is
 *  nothing of ours or the text is not the shape we edit. */
export function removeOursFromText(text: string): string | null {
  let root: JsonNode;
  try {
    root = parseSpans(text);
  } catch {
    return null;
  }
  const hooksProp = prop(root, 'hooks');
  if (!hooksProp || hooksProp.value.kind !== 'object' || root.kind !== 'object') return null;
  const hooks = hooksProp.value;
  const cuts: Span[] = [];
  const droppedEvents = new Set<number>();
  hooks.props.forEach((ev, evIndex) => {
    if (!(HOOK_EVENTS as readonly string[]).includes(ev.key) || ev.value.kind !== 'array') return;
    const groups = ev.value.items;
    const droppedGroups = new Set<number>();
    const inner: Span[] = [];
    groups.forEach((g, gi) => {
      const entries = prop(g, 'hooks')?.value;
      if (!entries || entries.kind !== 'array' || entries.items.length === 0) return;
      const ours = new Set(entries.items.flatMap((h, hi) => (isOurEntry(JSON.parse(text.slice(h.start, h.end))) ? [hi] : [])));
      if (ours.size === entries.items.length) droppedGroups.add(gi);
      else inner.push(...listCuts(entries.items, ours));
    });
    if (droppedGroups.size === groups.length && groups.length > 0) droppedEvents.add(evIndex);
    else cuts.push(...inner, ...listCuts(groups, droppedGroups));
  });
  if (droppedEvents.size === 0 && cuts.length === 0) return null;
  if (droppedEvents.size === hooks.props.length) cuts.push(...listCuts(root.props, new Set([root.props.indexOf(hooksProp)])));
  else cuts.push(...listCuts(hooks.props, droppedEvents));
  let out = text;
  for (const c of [...cuts].sort((a, b) => b.start - a.start)) out = out.slice(0, c.start) + out.slice(c.end);
  return out;
}

/**
 * A scripted stand-in for the Anthropic Messages API (or, with protocol 'responses', the OpenAI
 * Responses API Codex CLI speaks) on 127.0.0.1, so the real `claude` (or `codex`) CLI runs a
 * whole session offline. A scenario is a list of steps (a tool call, or text that ends
 * the turn); each agent request (`POST /v1/messages` with tools) takes the next step whose
 * `when` (if any) matches it, answered as a streaming SSE message: message_start,
 * content_block_start/delta/stop, message_delta (stop_reason), message_stop. A request with no
 * tools (titles, summaries) or past the end of the script gets a short text and end_turn.
 * Every request is recorded (path, body) so tests assert what the model received.
 * Responses API: `POST /v1/responses` (stream); a tool step becomes a `function_call` output
 * item (Codex's shell tool is `exec_command`, arguments `{cmd}`), text a `message` item, then
 * `response.completed`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Step =
  | { tool: string; input: Record<string, unknown>; text?: string; when?: (r: ModelRequest) => boolean }
  | { text: string; when?: (r: ModelRequest) => boolean };

export interface ModelRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
  /** Which step answered it (-1: the default text). */
  step: number;
  at: number;
}

export interface ModelServer {
  url: string;
  requests: ModelRequest[];
  /** Agent requests only (those that carry tools), in order. */
  agentRequests: () => ModelRequest[];
  /** Steps not yet used. */
  pending: () => number;
  close: () => Promise<void>;
}

/** What the stand-in says when nothing in the script applies. */
export const DEFAULT_TEXT = 'Done.';
const MODEL_ID = 'claude-stand-in-1';

/** The SSE events of one assistant message (pure: the server writes them as they are). */
export function sseEvents(step: Step | undefined, id: string): Array<{ event: string; data: Record<string, unknown> }> {
  const out: Array<{ event: string; data: Record<string, unknown> }> = [];
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  out.push({ event: 'message_start', data: { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: MODEL_ID, content: [], stop_reason: null, stop_sequence: null, usage } } });
  let index = 0;
  const text = step ? step.text : DEFAULT_TEXT;
  if (text) {
    out.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
    out.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text } } });
    out.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
    index++;
  }
  const isTool = !!step && 'tool' in step;
  if (isTool) {
    const toolId = `toolu_${id.slice(-20)}`;
    out.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolId, name: step.tool, input: {} } } });
    out.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(step.input) } } });
    out.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  }
  out.push({ event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: isTool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } } });
  out.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return out;
}

/** The Responses API events of one answer (pure). */
export function responsesEvents(step: Step | undefined, id: string): Array<{ event: string; data: Record<string, unknown> }> {
  const out: Array<{ event: string; data: Record<string, unknown> }> = [];
  const ev = (type: string, data: Record<string, unknown>) => out.push({ event: type, data: { type, ...data } });
  ev('response.created', { response: { id } });
  const text = step ? step.text : DEFAULT_TEXT;
  if (text) ev('response.output_item.done', { item: { type: 'message', role: 'assistant', id: `msg_${id}`, content: [{ type: 'output_text', text }] } });
  if (step && 'tool' in step) ev('response.output_item.done', { item: { type: 'function_call', name: step.tool, call_id: `call_${id}`, arguments: JSON.stringify(step.input) } });
  ev('response.completed', { response: { id, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } } });
  return out;
}

/** Every text the model received in a request, flattened (system, messages, tool results). */
export function receivedText(r: ModelRequest): string {
  const parts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'tools') walk(x);
  };
  walk(r.body.system);
  walk(r.body.messages);
  walk(r.body.instructions);
  walk(r.body.input);
  return parts.join('\n');
}

/** What arrived since the model's previous answer: every message after the last assistant
 *  one (the tool result, and the host's `system` message carrying hook context). */
export function sinceLastAnswer(r: ModelRequest): string {
  const msgs = (r.body.messages ?? r.body.input) as Array<{ role?: string; type?: string; content: unknown }> | undefined ?? [];
  let i = msgs.length - 1;
  while (i >= 0 && msgs[i].role !== 'assistant' && msgs[i].type !== 'function_call') i--;
  return receivedText({ ...r, body: { messages: msgs.slice(i + 1) } });
}

const hasTools = (body: Record<string, unknown>) => Array.isArray(body.tools) && body.tools.length > 0;

export type Protocol = 'messages' | 'responses';

export async function startModelServer(script: Step[], protocol: Protocol = 'messages'): Promise<ModelServer> {
  const agentPath = protocol === 'messages' ? '/v1/messages' : '/v1/responses';
  const requests: ModelRequest[] = [];
  const used = new Set<number>();
  let n = 0;
  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      body = { unparsed: raw };
    }
    const path = req.url ?? '';
    const rec: ModelRequest = { method: req.method ?? '', path, body, step: -1, at: Date.now() };
    requests.push(rec);
    if (req.method !== 'POST' || !path.startsWith(agentPath)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'stand-in' } }));
      return;
    }
    if (path.startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    let step: Step | undefined;
    if (hasTools(body)) {
      const i = script.findIndex((s, k) => !used.has(k) && (!s.when || s.when(rec)));
      if (i >= 0) {
        used.add(i);
        rec.step = i;
        step = script[i];
      }
    }
    const id = `msg_standin${String(++n).padStart(20, '0')}`;
    if (protocol === 'responses') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const e of responsesEvents(step, id)) res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
      res.end();
      return;
    }
    if (body.stream === false || body.stream === undefined) {
      const evs = sseEvents(step, id);
      const content = evs.filter((e) => e.event === 'content_block_start').map((e, k) => {
        const b = e.data.content_block as Record<string, unknown>;
        return b.type === 'text' ? { type: 'text', text: step ? step.text : DEFAULT_TEXT } : { ...b, input: step && 'tool' in step ? step.input : {} };
        void k;
      });
      const stop = step && 'tool' in step ? 'tool_use' : 'end_turn';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, type: 'message', role: 'assistant', model: MODEL_ID, content, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    for (const e of sseEvents(step, id)) res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    res.end();
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => handle(req, res, raw));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    agentRequests: () => requests.filter((r) => r.path.startsWith(agentPath) && !r.path.includes('count_tokens') && hasTools(r.body)),
    pending: () => script.length - used.size,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

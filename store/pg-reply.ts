/**
 * The reply protocol between store/pg-sync.ts (the main thread, blocked in Atomics.wait) and
 * store/pg-worker.ts (the worker thread that holds the connection). Every request carries an id
 * and its reply echoes it. The worker posts the reply on the message port first, then bumps a
 * shared counter and notifies. The waiting side trusts no wake-up: it takes replies off the port
 * until the one with its own id, drops any other (a late reply to a request it gave up on), and
 * sleeps only while the counter has not moved since it last looked. So a notify that arrives
 * late — the worker thread descheduled between bumping the counter and notifying, on a loaded
 * machine, so that it wakes the wait for the *next* request — means "look again", never "your
 * reply is there", and no reply is ever taken for another request's.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

export interface BridgeRequest {
  id: number;
  op: 'connect' | 'query' | 'close';
  url?: string;
  sql?: string;
  params?: unknown[];
  /** Per-statement limit (ms) set on connect. */
  statementTimeoutMs?: number;
  connectTimeoutMs?: number;
}

export interface BridgeReply {
  /** The id of the request this answers. */
  id: number;
  result?: unknown;
  error?: { message: string; code: string | null };
}

/** The shared counter of replies posted: one Int32 on a SharedArrayBuffer. */
export function newReplySignal(): SharedArrayBuffer {
  return new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
}

/** Worker side: the reply on the port, then the counter moves, then the waiter is woken. */
export function postReply(port: MessagePort, signal: Int32Array, reply: BridgeReply): void {
  port.postMessage(reply);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

/** Main side: block until the reply to request `id` is on the port, or until `deadline`
 *  (epoch ms; null then). Replies to other requests are dropped. */
export function awaitReply(port: MessagePort, signal: Int32Array, id: number, deadline: number): BridgeReply | null {
  for (;;) {
    // Read the counter before the port: a reply posted after this read moves the counter,
    // so the wait below returns at once instead of sleeping past it.
    const seen = Atomics.load(signal, 0);
    for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) {
      const reply = m.message as BridgeReply;
      if (reply?.id === id) return reply;
    }
    const left = deadline - Date.now();
    if (left <= 0) return null;
    Atomics.wait(signal, 0, seen, left);
  }
}

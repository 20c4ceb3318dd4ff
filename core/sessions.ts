/**
 * The pipeline's sessions in memory, keyed by transcript path (a subagent file never shares its
 * parent's state): each one's trigger state, recent exchanges, tool-step ring, sticky worker
 * verdict, lineage and seen text. Created on first sight, moved on at each exchange or tool
 * step, evicted when idle or beyond the cap (daemon.maxSessions). Used by core/pipeline.ts
 * only; the lineage comes from the store's lookups the pipeline hands in.
 */
import type { Config } from '../config/schema.js';
import type { Exchange } from '../shared/types.js';
import { SessionShingles } from '../retrieval/novelty.js';
import { isMessageUuid } from '../shared/message-uuid.js';
import { createSessionState, type SessionState } from './session-state.js';
import { isSubagentPath, isWorkerSession, type WorkerReason } from './workers.js';
import type { EpisodeLookup, LoopEntry } from './tool-step.js';

export interface SessionEntry {
  state: SessionState;
  recent: Exchange[];
  /** Recent tool steps (loop detection on the tool channel). */
  toolRing: LoopEntry[];
  lastActive: number;
  sessionId: string;
  /** Sticky worker verdict (a session is a worker once any exchange shows it). */
  worker: WorkerReason | null;
  /** This session's lineage (itself and the sessions sharing message uuids with it: the
   *  session it was resumed or forked from, its copies), learnt from the store as records arrive. */
  lineage: string[];
  /** What the session has seen (its exchanges' text as shingle hashes, bounded): novelty. */
  seen: SessionShingles;
}

export interface Eviction {
  path: string;
  sessionId: string;
  reason: 'idle' | 'capacity';
}

export class Sessions {
  private readonly byPath = new Map<string, SessionEntry>();

  constructor(private readonly deps: { config: Config; home: string }) {}

  get size(): number {
    return this.byPath.size;
  }

  /** Transcript paths in memory (for status / eviction logs). */
  paths(): string[] {
    return [...this.byPath.keys()];
  }

  /** Drop one session's state (file removed, truncated or replaced). */
  forget(path: string): boolean {
    return this.byPath.delete(path);
  }

  /** The session's lineage as learnt so far (session ids, itself included once the store knows
   *  any of its records), or [] for an unknown path. */
  lineageOf(path: string): string[] {
    return this.byPath.get(path)?.lineage ?? [];
  }

  /** This file's session entry (created on first sight), its activity clock moved on and
   *  its sticky worker verdict updated — the same for exchanges and tool steps. */
  entryFor(path: string, sessionId: string, now: number, subagent: boolean, meta: Parameters<typeof isWorkerSession>[0]): { entry: SessionEntry; newSession: boolean } {
    let entry = this.byPath.get(path);
    const newSession = !entry;
    if (!entry) {
      entry = { state: createSessionState(sessionId), recent: [], toolRing: [], lastActive: now, sessionId, worker: null, lineage: [], seen: new SessionShingles() };
      this.byPath.set(path, entry);
    }
    entry.lastActive = now;
    // In a main file, sidechain is a fact of one record, not of the session: Claude Code 1.x
    // wrote a Task subagent's records into the main file (isSidechain: true), so there only the
    // session's own facts make the sticky verdict and the observed gate silences each sidechain
    // exchange. A subagent's own file is sidechain throughout.
    const own = subagent || (meta.path != null && isSubagentPath(meta.path)) ? meta : { ...meta, isSidechain: false, agentId: null };
    const verdict = isWorkerSession(own, this.deps.config.workers, this.deps.home);
    if (verdict) entry.worker ??= verdict;
    if (subagent) entry.worker ??= 'subagent';
    return { entry, newSession };
  }

  /** Learn the session's lineage from a record uuid it holds: the sessions the store knows
   *  with that uuid, and their lineages. A resumed or forked session's first records are
   *  copies, so its lineage is known before its first live prompt. Store errors leave it as is. */
  learnLineage(entry: SessionEntry, lineage: EpisodeLookup['lineage'] | undefined, uuid: string | null | undefined, sessionId?: string | null): void {
    if (!lineage || !isMessageUuid(uuid)) return;
    try {
      // Itself included: a resumed file's first records may carry the parent's id, so the
      // entry's id and the records' ids can differ — every one of them is this session.
      const found = lineage.lineageOf({ uuids: [uuid], sessions: [entry.sessionId, ...(sessionId ? [sessionId] : [])] });
      if (found.some((s) => !entry.lineage.includes(s))) entry.lineage = [...new Set([...entry.lineage, ...found])].sort();
    } catch {
      // A lost store connection: the lineage stays as learnt so far.
    }
  }

  /** Evict sessions idle longer than daemon.sessionIdleEvictMinutes, then the least recently
   *  active beyond daemon.maxSessions. Returns the evicted transcript paths with session ids. */
  evict(now: number): Eviction[] {
    const d = this.deps.config.daemon;
    const out: Eviction[] = [];
    const idleMs = d.sessionIdleEvictMinutes * 60_000;
    for (const [p, e] of this.byPath) {
      if (now - e.lastActive > idleMs) {
        this.byPath.delete(p);
        out.push({ path: p, sessionId: e.sessionId, reason: 'idle' });
      }
    }
    if (this.byPath.size > d.maxSessions) {
      const byAge = [...this.byPath.entries()].sort((a, b) => a[1].lastActive - b[1].lastActive);
      for (const [p, e] of byAge.slice(0, this.byPath.size - d.maxSessions)) {
        this.byPath.delete(p);
        out.push({ path: p, sessionId: e.sessionId, reason: 'capacity' });
      }
    }
    return out;
  }
}

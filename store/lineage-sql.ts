/**
 * Lineage lookups over the SQLite store's `messages` table (schema v4): which sessions share
 * message uuids. Claude Code copies a session's records, uuids kept, into a new session file
 * when it is resumed, forked, continued or compacted, so the sessions that share a uuid —
 * directly or through others — are one lineage: the daemon, replay and the evals treat all
 * of it as the current session's own past (docs/OFFERS.md "Lineage").
 *
 * The groups are computed once from the shared uuids only (a union-find over the few rows whose
 * uuid has more than one session) and cached until the reader sees another connection commit
 * (`invalidate()`, called from the reader's refresh). Read-only; no text is read.
 */
import type Database from 'better-sqlite3';
import type { LineageReader } from './types.js';

/** Uuids per lookup statement (json_each keeps one statement for any count). */
const UUID_BATCH = 500;

/** Union-find over session ids: groups of two or more, each sorted. Pure. */
export function lineageGroups(pairs: Iterable<{ uuid: string; session: string }>): Map<string, string[]> {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    // Path compression keeps long chains of resumes cheap.
    let y = x;
    while (parent.get(y) !== r) {
      const next = parent.get(y)!;
      parent.set(y, r);
      y = next;
    }
    return r;
  };
  const firstOf = new Map<string, string>();
  for (const { uuid, session } of pairs) {
    if (!parent.has(session)) parent.set(session, session);
    const first = firstOf.get(uuid);
    if (first === undefined) firstOf.set(uuid, session);
    else if (first !== session) {
      const a = find(first);
      const b = find(session);
      if (a !== b) parent.set(a < b ? b : a, a < b ? a : b);
    }
  }
  const members = new Map<string, string[]>();
  for (const s of parent.keys()) {
    const r = find(s);
    const m = members.get(r);
    if (m) m.push(s);
    else members.set(r, [s]);
  }
  const out = new Map<string, string[]>();
  for (const m of members.values()) {
    if (m.length < 2) continue;
    m.sort();
    for (const s of m) out.set(s, m);
  }
  return out;
}

export class SqliteLineage implements LineageReader {
  private groups: Map<string, string[]> | null = null;
  private readonly sharedRows: Database.Statement;
  private readonly sessionsOfUuids: Database.Statement;

  /** `refresh`: the reader's own cache check (it calls invalidate() when the file changed). */
  constructor(db: Database.Database, private readonly refresh: () => void) {
    this.sharedRows = db.prepare(
      `SELECT uuid, session_id AS session FROM messages
       WHERE uuid IN (SELECT uuid FROM messages GROUP BY uuid HAVING count(DISTINCT session_id) > 1)`,
    );
    this.sessionsOfUuids = db.prepare(`SELECT DISTINCT session_id AS session FROM messages WHERE uuid IN (SELECT value FROM json_each(?))`);
  }

  invalidate(): void {
    this.groups = null;
  }

  /** Session id → its lineage (two or more sessions), cached until the store changes. */
  groupsBySession(): Map<string, string[]> {
    this.refresh();
    this.groups ??= lineageGroups(this.sharedRows.iterate() as Iterable<{ uuid: string; session: string }>);
    return this.groups;
  }

  lineageOf(q: { sessions?: string[]; uuids?: string[] }): string[] {
    const groups = this.groupsBySession();
    const start = new Set((q.sessions ?? []).filter((s) => typeof s === 'string' && s !== ''));
    const uuids = [...new Set((q.uuids ?? []).filter((u) => typeof u === 'string' && u !== ''))];
    for (let i = 0; i < uuids.length; i += UUID_BATCH) {
      for (const r of this.sessionsOfUuids.all(JSON.stringify(uuids.slice(i, i + UUID_BATCH))) as Array<{ session: string }>) start.add(r.session);
    }
    const out = new Set<string>();
    for (const s of start) {
      out.add(s);
      for (const m of groups.get(s) ?? []) out.add(m);
    }
    return [...out].sort();
  }
}

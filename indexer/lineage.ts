/**
 * Lineage at index time (pure): Claude Code copies a session's records, uuids kept, into a new
 * session file when the session is resumed, forked, continued or compacted. The indexer
 * records every message uuid of a transcript (store `messages`, schema v4) and chunks a
 * copied message once: an exchange whose prompt uuid another document's chunks already hold
 * is left out of this document's chunks, with the tool steps (error episodes) inside it. The
 * store still remembers that this session holds it, so both are one lineage
 * (store/lineage-sql.ts) and neither is ever offered to the other.
 *
 * Input: the transcript's exchanges, tool steps and main-lane record uuids (indexer/transcript-file.ts)
 * and the uuids held elsewhere (StoreWriter.messagesHeldElsewhere). Output: what to chunk, and
 * the document's DocumentMessages.
 */
import type { Exchange } from '../shared/types.js';
import type { DocumentMessages } from '../store/types.js';
import type { ToolStep } from '../transcript/tool-steps.js';
import { isMessageUuid } from '../shared/message-uuid.js';


export interface LineageSplit {
  exchanges: Exchange[];
  steps: ToolStep[];
  messages: DocumentMessages;
  /** Exchanges left out because another document holds them. */
  copiedExchanges: number;
}

/** Leave out the exchanges (and the tool steps inside them) whose prompt uuid is held elsewhere. */
export function splitCopies(
  sessionId: string,
  read: { exchanges: Exchange[]; steps: ToolStep[]; uuids: string[] },
  heldElsewhere: ReadonlySet<string>,
): LineageSplit {
  const uuids = [...new Set(read.uuids.filter(isMessageUuid))];
  const copiedRanges: Array<[number, number]> = [];
  const exchanges = read.exchanges.filter((e) => {
    if (e.isSidechain || !isMessageUuid(e.uuid) || !heldElsewhere.has(e.uuid)) return true;
    copiedRanges.push([e.startOffset, e.endOffset]);
    return false;
  });
  const steps = read.steps.filter((s) => !copiedRanges.some(([a, b]) => s.startOffset >= a && s.startOffset < b));
  return {
    exchanges,
    steps,
    messages: { sessionId, uuids, copied: uuids.filter((u) => heldElsewhere.has(u)) },
    copiedExchanges: copiedRanges.length,
  };
}

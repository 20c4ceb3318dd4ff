import { describe, expect, it } from 'vitest';
import { publishDecision, publishLineage, type PublishBook, type PublishableDecision } from '../../core/publish.js';
import type { Offer } from '../../shared/types.js';
import { MAX_LINEAGE_SESSIONS } from '../../shared/message-uuid.js';
import { safeSessionId } from '../../shared/paths.js';

const offer: Offer = {
  id: 'o1', chunkId: 7, handle: 'notes/a.md#1', type: 'past-fix', confidence: 0.8, reason: 'r',
  region: 'notes', wildcard: false, trigger: 'error', reasoned: false,
};
const dec = (over: Partial<PublishableDecision> = {}): PublishableDecision => ({
  sessionId: 's', mode: 'default', turn: 3, offset: 100, exchangeUuid: 'u3', offer: null, cacheable: true, ...over,
});
const opts = (provisional: boolean) => ({ provisional, path: '/t/s.jsonl', now: 1000, ttlSeconds: 60 });

describe('publishDecision (the one decision → cache function of daemon and replay)', () => {
  it('writes a stamped cache for a cacheable decision, silence included', () => {
    const book: PublishBook = { provisionalOffer: null };
    const c = publishDecision(book, dec(), opts(false));
    expect(c).toMatchObject({ version: 1, sessionId: 's', mode: 'default', turn: 3, transcriptOffset: 100, exchangeUuid: 'u3', offer: null, createdAt: 1000, expiresAt: 61_000 });
  });

  it('never writes for an uncacheable decision or one without a mode', () => {
    const book: PublishBook = { provisionalOffer: null };
    expect(publishDecision(book, dec({ cacheable: false, offer }), opts(false))).toBeNull();
    expect(publishDecision(book, dec({ mode: null, offer }), opts(false))).toBeNull();
  });

  it('a silent final decision does not replace the offer its provisional decision cached', () => {
    const book: PublishBook = { provisionalOffer: null };
    expect(publishDecision(book, dec({ offer }), opts(true))?.offer?.id).toBe('o1');
    expect(book.provisionalOffer).toBe('u3');
    const final = dec();
    expect(publishDecision(book, final, opts(false))).toBeNull();
    expect(final.cacheable).toBe(false);
    expect(book.provisionalOffer).toBeNull();
    // Control: the next exchange's silent decision is written again.
    expect(publishDecision(book, dec({ exchangeUuid: 'u4', turn: 4 }), opts(false))?.offer).toBeNull();
  });

  it('a final decision with an offer replaces the provisional one and clears the book', () => {
    const book: PublishBook = { provisionalOffer: 'u3' };
    expect(publishDecision(book, dec({ offer: { ...offer, id: 'o2' } }), opts(false))?.offer?.id).toBe('o2');
    expect(book.provisionalOffer).toBeNull();
  });
});

describe('publishLineage (the session\'s lineage file, daemon and replay)', () => {
  it('is written when the lineage names another session, and again only when it changed', () => {
    const book: PublishBook = { provisionalOffer: null };
    expect(publishLineage(book, 's', [], 1)).toBeNull();
    expect(publishLineage(book, 's', ['s'], 1)).toBeNull(); // only itself: nothing to tell
    expect(publishLineage(book, 's', ['s', 'p2', 'p1', 'p1'], 2)).toEqual({ version: 1, sessionId: 's', sessions: ['p1', 'p2'], createdAt: 2 });
    expect(publishLineage(book, 's', ['p2', 's', 'p1'], 3)).toBeNull(); // the same set
    expect(publishLineage(book, 's', ['p1', 'p2', 'p3'], 4)).toMatchObject({ sessions: ['p1', 'p2', 'p3'], createdAt: 4 });
  });

  it('never names fewer sessions than it did (a lineage stays true: a session learnt again from fewer records keeps them)', () => {
    const book: PublishBook = { provisionalOffer: null };
    expect(publishLineage(book, 's', ['p1', 'p2'], 1)!.sessions).toEqual(['p1', 'p2']);
    expect(publishLineage(book, 's', ['p1'], 2)).toBeNull();
    expect(publishLineage(book, 's', ['p3'], 3)!.sessions).toEqual(['p1', 'p2', 'p3']);
  });

  it('a session id that would name another session\'s tool cache or lineage file is no file name', () => {
    expect(safeSessionId('a1b2')).toBe('a1b2');
    expect(safeSessionId('a1b2.lineage')).toBeNull();
    expect(safeSessionId('a1b2.tool')).toBeNull();
    expect(safeSessionId('a1b2.tools')).toBe('a1b2.tools');
  });

  it(`names at most ${MAX_LINEAGE_SESSIONS} sessions (the hook refuses a longer file)`, () => {
    const many = Array.from({ length: MAX_LINEAGE_SESSIONS + 5 }, (_, i) => `p${String(i).padStart(3, '0')}`);
    expect(publishLineage({ provisionalOffer: null }, 's', many, 1)!.sessions).toEqual(many.slice(0, MAX_LINEAGE_SESSIONS));
  });
});

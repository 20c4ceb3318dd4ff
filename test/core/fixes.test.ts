import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildFixFiles, exactFixes, fixConfidence, fixReason, EXACT_RESOLVED, NEAR_MIN_OVERLAP, UNRESOLVED } from '../../core/fixes.js';
import type { EpisodeRecord } from '../../store/types.js';

const SIG = '00563818672bd1';
const ep = (over: Partial<EpisodeRecord> = {}): EpisodeRecord => ({
  chunkId: 1, handle: 'sessions/p/s1.jsonl#e1', region: 'sessions', regionScope: 'global', source: 'episode',
  sig: SIG, head: ['fatal: the current branch <name> has no upstream branch.'], words: ['fatal', 'current', 'branch', 'upstream'],
  sessionId: '258c7280-aaaa', tool: 'Bash', action: 'Bash: git push', fix: 'git push --set-upstream origin <branch>',
  resolved: true, at: Date.UTC(2026, 1, 11), outcome: 'succeeded', attempts: 1, note: '', ...over,
});

describe('Past fix offers from episodes', () => {
  it('says which error, where and when, and what fixed it', () => {
    expect(fixReason(ep(), 'exact')).toBe('fixed by git push --set-upstream origin <branch> — same "the current branch … has no upstream branch." error in session 258c… (2026-02-11)');
    expect(fixReason(ep({ resolved: false, fix: '' }), 'exact')).toMatch(/^not resolved there: same /);
    expect(fixReason(ep({ source: 'note', handle: 'notes/git.md#2' }), 'near')).toMatch(/^fixed by .* — similar ".*" error in a note \(notes\/git.md#2\)$/);
  });

  it('is most confident for an exact signature of a resolved episode; near and unresolved stay below it', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 10 }), (o, agree) => {
        const exact = fixConfidence(ep(), 'exact', 1, agree);
        expect(exact).toBeGreaterThanOrEqual(EXACT_RESOLVED);
        expect(exact).toBeLessThanOrEqual(0.95);
        expect(fixConfidence(ep(), 'near', o, agree)).toBeLessThan(EXACT_RESOLVED);
        expect(fixConfidence(ep({ resolved: false }), 'exact', 1, agree)).toBe(UNRESOLVED);
      }),
    );
    expect(fixConfidence(ep(), 'near', NEAR_MIN_OVERLAP, 0)).toBeLessThan(0.7); // below the tool channel's default gate
  });

  it('counts agreement across sessions, not repeats within one', () => {
    const one = exactFixes(SIG, [ep({ chunkId: 1 }), ep({ chunkId: 2 })]);
    const two = exactFixes(SIG, [ep({ chunkId: 1 }), ep({ chunkId: 2, sessionId: 'other' })]);
    expect(one[0].offer.confidence).toBe(EXACT_RESOLVED);
    expect(two[0].offer.confidence).toBeGreaterThan(EXACT_RESOLVED);
  });

  it('ranks resolved first and most recent first; ids are deterministic', () => {
    const f = exactFixes(SIG, [ep({ chunkId: 5, resolved: false, fix: '' }), ep({ chunkId: 6, at: 1 }), ep({ chunkId: 7, at: 2 })]);
    expect(f.map((x) => x.offer.chunkId)).toEqual([7, 6, 5]);
    expect(f[0].offer.id).toBe(`fix-${SIG}-7`);
    expect(f[0]).toMatchObject({ sourceSession: '258c7280-aaaa', scope: 'global' });
    expect(f[0].offer).toMatchObject({ type: 'past-fix', trigger: 'error', channel: 'tool' });
  });

  it('builds one fixes file per signature with a resolved episode, nothing for unresolved ones', () => {
    const files = buildFixFiles([ep(), ep({ chunkId: 9, sig: '0000000000000a', resolved: false, fix: '' }), ep({ chunkId: 3, sig: 'not-a-sig' })], 'stamp', 5);
    expect([...files.keys()]).toEqual([SIG]);
    expect(files.get(SIG)).toMatchObject({ version: 1, sig: SIG, storeStamp: 'stamp', createdAt: 5 });
  });
});

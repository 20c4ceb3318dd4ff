/**
 * Errors quoted in Markdown notes (indexer/note-signatures.ts): an output fence, a
 * blockquote and a long inline code span that look like errors give signatures equal to
 * the tool error's own; code fences, quoted commands and prose do not (controls).
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { quotedSignatures, MAX_QUOTED_PER_CHUNK } from '../../indexer/note-signatures.js';
import { errorSignature } from '../../shared/error-signature.js';

const TOOL_ERROR = 'Exit code 128\nfatal: The current branch topic-x has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n';

describe('quoted error signatures in notes', () => {
  it('an output fence quoting the error gives the same signature as the tool error, and the line after as its fix', () => {
    const note = [
      '## Pushing a new branch',
      '',
      '```console',
      '$ git push',
      'fatal: The current branch my-feature has no upstream branch.',
      'To push the current branch and set the remote as upstream, use',
      '```',
      '',
      'Fixed by `git push -u origin HEAD` once per branch.',
    ].join('\n');
    const sigs = quotedSignatures(note);
    expect(sigs).toHaveLength(1);
    expect(sigs[0].sig).toBe(errorSignature(TOOL_ERROR)!.sig);
    expect(sigs[0].fix).toBe('Fixed by `git push -u origin HEAD` once per branch.');
  });

  it('a blockquote and a long inline code span count; a code fence in a language does not (control: the same text as output does)', () => {
    const quote = '> Error: connect ECONNREFUSED 127.0.0.1:5432\n\nStart the database first.';
    expect(quotedSignatures(quote).map((s) => s.fix)).toEqual(['Start the database first.']);
    expect(quotedSignatures('When you see `error: could not compile cart due to 2 previous errors` run cargo clean.')).toHaveLength(1);
    const code = '```ts\nthrow new Error("invalid cart total");\n```';
    expect(quotedSignatures(code)).toEqual([]);
    expect(quotedSignatures(code.replace('```ts', '```'))).toHaveLength(1);
  });

  it('quotes that do not name a failure, short spans and plain prose give nothing', () => {
    expect(quotedSignatures('```\nnpm run build\nnpm run deploy\n```')).toEqual([]);
    expect(quotedSignatures('Use `ENOENT` checks.')).toEqual([]);
    expect(quotedSignatures('The build failed yesterday because the cache was invalid.')).toEqual([]);
  });

  it('property: bounded, each signature once, each equal to errorSignature of some quoted text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('Error: a failed', 'fatal: b is missing', 'ok then', 'panic: c'), { maxLength: 20 }), (errs) => {
        const md = errs.map((e) => '```\n' + e + '\n```\nnote').join('\n');
        const sigs = quotedSignatures(md);
        expect(sigs.length).toBeLessThanOrEqual(MAX_QUOTED_PER_CHUNK);
        expect(new Set(sigs.map((s) => s.sig)).size).toBe(sigs.length);
        const all = new Set(errs.map((e) => errorSignature(e)?.sig));
        for (const s of sigs) expect(all.has(s.sig)).toBe(true);
      }),
    );
  });
});

/**
 * core/dialogue-cues.ts: which texts ask a question (prose only: code, inline code, URLs
 * and ternaries never count) and which replies end by asking. Examples plus properties.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { asksQuestion, endsAskingQuestion, proseOf, REPLY_QUESTION_TAIL_CHARS } from '../../core/dialogue-cues.js';

describe('asksQuestion', () => {
  it.each([
    ['how do I fix the pool timeout?', true],
    ['so what did you bake this weekend ?', true], // tokenized text, as in chat datasets
    ['Really?? That is odd.', true],
    ['it broke (why?) after the merge', true],
    ['"is it cached?" she asked', true],
    ['what about the retry logic?\n\nalso check the logs', true],
    ['fix the pool timeout', false],
    ['use `a ? b : c` for the default', false],
    ['set it to ok ? 1 : 0 in the config', false],
    ['call user?.name when present', false],
    ['see https://example.com/search?q=pool&page=2 for details', false],
    ['```ts\nconst x = y ? 1 : 2;\nwhy?\n```', false],
    ['~~~\nwhat?\n~~~\nrun it', false],
    ['', false],
    // French typography: a space before the mark
    ['Pourquoi ça échoue ?', true],
    // marks a review found: emphasis, ?!, ellipsis, a URL right before the mark, other scripts
    ['Why does this fail?!', true],
    ['**Why does this fail?**', true],
    ['Any ideas…?', true],
    ['Can you check https://github.com/x/y/issues/12?', true],
    ['为什么测试失败？', true],
    ['لماذا فشل الاختبار؟', true],
    ['how do I write ``` in markdown?', true],
    // code written as prose
    ['use foo ?? bar here', false],
    ['const x = a ?? b; then x ??= 1', false],
    ['SELECT * FROM t WHERE id = ? AND name = ?', false],
    ['INSERT INTO t VALUES (?, ?)', false],
    ['set it with cond? a : b', false],
    ["error TS2551: Property 'lenght' does not exist. Did you mean 'length'?", false],
    ["NameError: name 'prnt' is not defined. Did you mean: 'print'?", false],
    ['see https://example.com/search?q=pool&page=2', false],
    // …but a real question next to them still counts
    ["Did you mean 'length'? The build says so. Why did it change?", true],
    ['did you mean to delete that file?', true],
  ])('%j → %s', (text, want) => {
    expect(asksQuestion(text)).toBe(want);
  });

  it('property: no "?" → no question', () => {
    fc.assert(
      fc.property(fc.string().map((s) => s.replace(/\?/g, '')), (s) => {
        expect(asksQuestion(s)).toBe(false);
      }),
    );
  });

  it('property: a question inside a fenced code block or inline code never counts', () => {
    fc.assert(
      fc.property(fc.string().map((s) => s.replace(/[`~?]/g, '')), fc.string().map((s) => s.replace(/[`~\n]/g, '')), (prose, code) => {
        expect(asksQuestion(`${prose}\n\`\`\`\n${code} why? what?\n\`\`\`\n${prose}`)).toBe(false);
        expect(asksQuestion(`${prose} \`${code}?\` ${prose}`)).toBe(false);
      }),
    );
  });

  it('property: appending a prose question always makes it ask; appending code never changes the answer', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        expect(asksQuestion(`${s}\n\nshould we retry?`)).toBe(true);
        const closed = (s.match(/```/g)?.length ?? 0) % 2 === 0 && (s.match(/~~~/g)?.length ?? 0) % 2 === 0;
        if (closed) expect(asksQuestion(`${s}\n\`\`\`\nx = a ? b : c; y?\n\`\`\``)).toBe(asksQuestion(s));
      }),
    );
  });
});

describe('endsAskingQuestion', () => {
  it('a reply ending with a follow-up question asks; control: the same question far from the end does not', () => {
    const body = 'I changed the pool settings and reran the tests; all of them pass now. '.repeat(6);
    expect(endsAskingQuestion(`${body}\n\nWant me to also add a regression test?`)).toBe(true);
    expect(body.length).toBeGreaterThan(REPLY_QUESTION_TAIL_CHARS);
    expect(endsAskingQuestion(`Why did it fail? Because the pool was too small.\n\n${body}`)).toBe(false);
    expect(asksQuestion(`Why did it fail? Because the pool was too small.\n\n${body}`)).toBe(true);
  });

  it('a code block at the end does not hide or fake the question', () => {
    expect(endsAskingQuestion('Shall I apply this?\n```diff\n- a\n+ b\n```')).toBe(true);
    expect(endsAskingQuestion('Applied.\n```js\nconst a = b ? c : d; // why?\n```')).toBe(false);
  });

  it('proseOf drops code and URLs and keeps the words', () => {
    expect(proseOf('run `npm test?` then see https://x.io/?a=1 ok')).not.toMatch(/\?/);
    expect(proseOf('run `npm test?` then see https://x.io/?a=1 ok')).toMatch(/run .* then see .* ok/);
  });
});

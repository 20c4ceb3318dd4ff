import { describe, expect, it } from 'vitest';
import { escapeRegExp, lazyRegExp } from '../../shared/regexp.js';

describe('shared/regexp', () => {
  it('lazyRegExp builds its regex once, on the first call, with the flags given', () => {
    const get = lazyRegExp('\\p{L}{2}', 'u');
    const re = get();
    expect(get()).toBe(re);
    expect(re.flags).toBe('u');
    expect(re.test('数据')).toBe(true);
    expect(re.test('1 2')).toBe(false);
  });

  it('escapeRegExp makes a literal of any text', () => {
    const s = 'a.b*c?(d)[e]{f}|g^h$i\\j+k';
    expect(new RegExp(`^${escapeRegExp(s)}$`).test(s)).toBe(true);
    expect(new RegExp(`^${escapeRegExp('a.b')}$`).test('axb')).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';

import { splitCodeSpans, splitFences } from '../src/fences';

describe('splitCodeSpans', () => {
  it('shows a name in backticks as code, the rest as text', () => {
    expect(splitCodeSpans('`df`: a frame')).toEqual([
      { code: true, text: 'df' },
      { code: false, text: ': a frame' }
    ]);
  });

  it('closes a span only with a run as long as the one that opened it', () => {
    expect(splitCodeSpans('run ``a ` b`` now')).toEqual([
      { code: false, text: 'run ' },
      { code: true, text: 'a ` b' },
      { code: false, text: ' now' }
    ]);
  });

  it('keeps a backtick nothing closes as text', () => {
    expect(splitCodeSpans('a `` b `c`')).toEqual([
      { code: false, text: 'a `` b ' },
      { code: true, text: 'c' }
    ]);
    expect(splitCodeSpans('no code here')).toEqual([{ code: false, text: 'no code here' }]);
  });

  it('drops the one space that pads both ends of a span', () => {
    expect(splitCodeSpans('`` `x` ``')).toEqual([{ code: true, text: '`x`' }]);
  });
});

describe('splitFences', () => {
  it("takes a `--with` prompt's summaries as code blocks", () => {
    const text = 'fix it\n\nAttached:\n\n`df`:\n```text\nshape: (3, 2)\n```';
    expect(splitFences(text)).toEqual([
      { code: false, text: 'fix it\n\nAttached:\n\n`df`:' },
      { code: true, text: 'shape: (3, 2)' }
    ]);
  });
});

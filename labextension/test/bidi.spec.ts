import { describe, expect, it } from 'vitest';

import { bidiShown } from '../src/bidi';
import { readEntry } from '../src/entries';

describe('bidirectional controls', () => {
  it('shows each as a visible mark, as the server does, and leaves other text alone', () => {
    const sneaky = 'if admin \u202e} \u2066// check\u2069 {';
    expect(bidiShown(sneaky)).toBe('if admin ⟨U+202E⟩} ⟨U+2066⟩// check⟨U+2069⟩ {');
    expect(bidiShown('שלום, plain café')).toBe('שלום, plain café');
  });

  it('is applied to every entry the panel reads', () => {
    const entry = readEntry({ id: 'c1', kind: 'chat', author: 'bob', body: 'abc\u202edef' });
    expect(entry.body).toBe('abc⟨U+202E⟩def');
  });
});

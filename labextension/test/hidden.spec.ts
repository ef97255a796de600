import { describe, expect, it } from 'vitest';

import { hiddenIn, hiddenWords, textsOf, wholeText } from '../src/hidden';

describe('what a card hides of a long text', () => {
  it('says how many characters are hidden, one or many', () => {
    expect(hiddenWords({ shown: 8000, total: 20000 })).toBe('12,000 more characters hidden');
    expect(hiddenWords({ shown: 8000, total: 8001 })).toBe('1 more character hidden');
  });

  it('reads the cut texts from details.truncated and keeps only the texts as details', () => {
    const details = {
      intention: 'run it',
      diff: '+a',
      truncated: {
        summary: { shown: 8000, total: 20000 },
        diff: { shown: 8000, total: 8000 }, // nothing hidden: left out
        code: 'not sizes'
      }
    };
    expect(hiddenIn(details)).toEqual({ summary: { shown: 8000, total: 20000 } });
    expect(textsOf(details)).toEqual({ intention: 'run it', diff: '+a' });
    expect(hiddenIn({ intention: 'x' })).toEqual({});
    expect(hiddenIn(undefined)).toEqual({});
  });

  it('takes the whole text of a field from the whole card, and says what even it leaves out', () => {
    const whole = {
      id: 'r',
      summary: 'echo long',
      details: { diff: '+whole' },
      truncated: { diff: { shown: 5_000_000, total: 6_000_000 } }
    };
    expect(wholeText(whole, 'summary')).toEqual({ text: 'echo long', beyond: null });
    expect(wholeText(whole, 'diff')).toEqual({
      text: '+whole',
      beyond: 'The room keeps only the first 5,000,000 of its 6,000,000 characters.'
    });
  });
});

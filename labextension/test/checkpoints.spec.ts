import { describe, expect, it } from 'vitest';

import { changedLabel, revertQuestion, unnamedLine } from '../src/checkpoints';

describe("a checkpoint's words", () => {
  it('counts the files it changed', () => {
    expect(changedLabel(['a.py'])).toBe('Changed 1 file');
    expect(changedLabel(['a.py', 'b.ipynb'])).toBe('Changed 2 files');
  });

  it('asks about a revert in words that agree with the count', () => {
    expect(revertQuestion(['stats.py'])).toBe('stats.py goes back to how it was before the turn.');
    expect(revertQuestion(['a.py', 'b.ipynb'])).toBe(
      'These 2 files go back to how they were before the turn: a.py, b.ipynb.'
    );
  });
});

describe('a checkpoint of files the agent did not name', () => {
  it('says they changed while its shell ran, and nothing when there are none', () => {
    expect(unnamedLine(['made.txt', 'b.csv'])).toBe(
      "changed while the agent's shell ran: made.txt, b.csv"
    );
    expect(unnamedLine([])).toBe('');
    expect(unnamedLine(undefined)).toBe('');
  });
});

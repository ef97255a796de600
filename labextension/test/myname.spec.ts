import { describe, expect, it } from 'vitest';

import { cleanName, initialsOf, MAX_NAME } from '../src/myname';

describe("the reader's own name", () => {
  it('is tidied and cut to its longest', () => {
    expect(cleanName('  Ana   Lima \n')).toBe('Ana Lima');
    expect(cleanName('x'.repeat(100))).toHaveLength(MAX_NAME);
  });

  it('gives initials from its first two words', () => {
    expect(initialsOf('ana lima souza')).toBe('AL');
    expect(initialsOf('Io')).toBe('I');
  });
});

import { describe, expect, it } from 'vitest';

import { readableHelp } from '../src/policy';

describe("a setting's help", () => {
  it('names the values it quotes as the editor names them', () => {
    const help = "Who nobody decided on yet: 'ask-host' (wait at the door), 'viewer' or 'refuse'.";
    expect(readableHelp(help, ['ask-host', 'viewer', 'member', 'refuse'])).not.toMatch(/'[a-z-]+'/);
    expect(readableHelp(help, ['ask-host'])).toContain('“');
    expect(readableHelp('Seconds a turn may run.', [])).toBe('Seconds a turn may run.');
  });
});

import { describe, expect, it } from 'vitest';

import { claimSecret, mayClaimHost } from '../src/policy';
import { me } from './roomdoc';

describe('claiming a room that has no host', () => {
  it('is offered only when the server says so', () => {
    const waiting = me('6e623df3', 'pending');
    expect(mayClaimHost(waiting)).toBe(false);
    expect(mayClaimHost({ ...waiting, can: ['claim_host'] })).toBe(true);
    expect(mayClaimHost(null)).toBe(false);
  });

  it('takes the secret, or the secret out of a pasted link', () => {
    expect(claimSecret('  Ab3_x-9  ')).toBe('Ab3_x-9');
    expect(
      claimSecret('http://127.0.0.1:8888/base/copilot-room/claim?secret=Ab3_x-9&token=t0k')
    ).toBe('Ab3_x-9');
    expect(claimSecret('http://localhost:8888/copilot-room/claim?token=t&secret=a%2Bb')).toBe(
      'a+b'
    );
    expect(claimSecret('…/claim?secret=%E0%A4%A')).toBe('%E0%A4%A');
  });
});

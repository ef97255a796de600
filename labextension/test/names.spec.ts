import { describe, expect, it } from 'vitest';

import { displayName, nameOf, nameParts, SOMEONE, vouchedForByNobody } from '../src/names';
import { IParticipant } from '../src/types';

const guest: IParticipant = {
  username: '6e623df3a1b24c6d',
  display_name: 'Anonymous Callirrhoe',
  role: 'member',
  online: false,
  verified: false
};
const room = {
  person: (username: string) => (username === guest.username ? guest : undefined)
};

describe('naming people', () => {
  it('cuts a system line into text and the people it names, in order', () => {
    expect(nameParts('{0} admitted {1} as a member.', ['alice', guest.username])).toEqual([
      { username: 'alice' },
      ' admitted ',
      { username: guest.username },
      ' as a member.'
    ]);
    expect(nameParts("{1} withdrew {0}'s prompt.", ['bob', 'alice'])).toEqual([
      { username: 'alice' },
      ' withdrew ',
      { username: 'bob' },
      "'s prompt."
    ]);
  });

  it('keeps doubled braces as braces and a line without people as written', () => {
    expect(nameParts('{0} changed the room settings: note = {{0}} {{x}}.', ['alice'])).toEqual([
      { username: 'alice' },
      ' changed the room settings: note = {0} {x}.'
    ]);
    expect(nameParts('The agent is ready: {0} {x}.', undefined)).toEqual([
      'The agent is ready: {0} {x}.'
    ]);
    expect(nameParts('{0} and {3}', ['alice'])).toEqual([{ username: 'alice' }, ' and {3}']);
  });

  it('names people by their display name, also after they left; never by an empty name', () => {
    expect(nameOf(guest.username, room)).toBe('Anonymous Callirrhoe');
    expect(displayName('6e623df3', undefined)).toBe('6e623df3'); // never seen: all there is
    expect(displayName('', undefined)).toBe(SOMEONE);
  });
});

describe('the unverified badge', () => {
  const member = { ...guest, verified: false, role: 'member' } as IParticipant;
  it('marks a guest nobody vouched for, never a host or the server owner', () => {
    expect(vouchedForByNobody('6e62', member)).toBe(true);
    expect(vouchedForByNobody('6e62', { ...member, role: 'host' })).toBe(false);
    expect(vouchedForByNobody('server-owner', member)).toBe(false);
    expect(vouchedForByNobody('alice', { ...member, verified: true })).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';

import { IMe, IParticipant } from '../src/types';
import { ownWorkspace } from '../src/workspace';

const me = { username: 'bob', display_name: 'Bob', role: 'member', can: [] } as unknown as IMe;
const person = (username: string) => ({ username }) as IParticipant;

describe('the offer of a workspace of their own', () => {
  it("is bob's own URL on the default workspace once someone else is in the room", () => {
    const offer = (participants: IParticipant[], workspace = 'default') =>
      ownWorkspace({ workspace, baseUrl: '/user/alice/', me, participants });
    expect(offer([person('bob'), person('alice')])).toBe('/user/alice/lab/workspaces/bob');
    expect(offer([person('bob')])).toBeNull(); // alone: nothing is shared yet
    expect(offer([person('bob'), person('alice')], 'bob')).toBeNull(); // already in one
    expect(offer([person('bob'), person('alice')], '')).toBeNull(); // a page without workspaces
  });

  it('names an unusual username safely and waits to know who the reader is', () => {
    const odd = { ...me, username: 'a b/c' };
    const participants = [person('a b/c'), person('alice')];
    expect(ownWorkspace({ workspace: 'default', baseUrl: '/', me: odd, participants })).toBe(
      '/lab/workspaces/a%20b%2Fc'
    );
    expect(ownWorkspace({ workspace: 'default', baseUrl: '/', me: null, participants })).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';

import { mayManageThread, maySeeThread } from '../src/policy';
import { lastReply, ThreadRoomClient, ThreadsClient } from '../src/threads';
import { RoomModel } from '../src/model';
import { addEntry, roomDoc } from './roomdoc';
import { IAnswerers, IMe, IThread } from '../src/types';
import { settingsAnswering } from './fakeserver';

function recording(): ReturnType<typeof settingsAnswering> {
  return settingsAnswering(
    async () => new Response('{}', { status: 200, headers: { 'Content-Type': 'application/json' } })
  );
}

const where = (request: Request) => `${request.method} ${new URL(request.url).pathname}`;

describe('a thread in the panel', () => {
  it("sends the thread's own commands to the thread, and answers cards as the room's", async () => {
    const { serverSettings, requests } = recording();
    const client = new ThreadRoomClient({ serverSettings, room: 'main', thread: 't1' });
    await client.submit('try polars');
    await client.say('psst');
    await client.withdraw('p2');
    await client.abort();
    await client.checkpointDiff('c0ffee');
    await client.answerPermission('r1', true);
    await client.room();
    const api = '/base/copilot-room/api/rooms/main/';
    expect(requests.map(where)).toEqual([
      `POST ${api}threads/t1/prompts`,
      `POST ${api}threads/t1/messages`,
      `DELETE ${api}threads/t1/prompts/p2`,
      `POST ${api}threads/t1/abort`,
      `GET ${api}threads/t1/checkpoints/c0ffee/diff`,
      `POST ${api}approvals/r1`,
      `GET ${api}room`
    ]);
    expect(await requests[0].json()).toEqual({ text: 'try polars' });
  });

  it('forks, promotes and closes through the room', async () => {
    const { serverSettings, requests } = recording();
    const threads = new ThreadsClient(serverSettings, 'north');
    await threads.open('polars', 'p1');
    await threads.promote('t1', 'prompt', 'Adopt it:');
    await threads.close('t1');
    await threads.roomPeople();
    const api = '/base/copilot-room/api/rooms/north/threads';
    expect(requests.map(where)).toEqual([
      `POST ${api}`,
      `POST ${api}/t1/promote`,
      `DELETE ${api}/t1`,
      'GET /base/copilot-room/api/rooms/north/participants'
    ]);
    expect(await requests[0].json()).toEqual({ title: 'polars', from: 'p1' });
    expect(await requests[1].json()).toEqual({ as: 'prompt', text: 'Adopt it:' });
  });

  it('is seen by its people and the hosts only', () => {
    const thread: IThread = {
      id: 't1',
      title: 'x',
      owner: 'bob',
      from: null,
      state: 'open',
      people: ['bob', 'dave']
    };
    const me = (username: string, role: string) =>
      ({
        username,
        role,
        can: role === 'viewer' ? ['watch'] : ['watch', 'submit']
      }) as unknown as IMe;
    expect(maySeeThread(me('dave', 'member'), thread)).toBe(true);
    expect(maySeeThread(me('erin', 'member'), thread)).toBe(false);
    expect(maySeeThread(me('alice', 'host'), thread)).toBe(true);
    expect(maySeeThread(me('dave', 'viewer'), thread)).toBe(false);
    expect(maySeeThread(null, thread)).toBe(false);
    // What the server says (`meta.threads`' access) decides: here only its owner manages it.
    const named = (users: string[]): IAnswerers => ({
      users,
      roles: ['host'],
      needed: 0,
      approved: []
    });
    const access = { use: named(['bob', 'dave']), manage: named(['bob']) };
    const listed = { ...thread, access };
    expect(mayManageThread(me('bob', 'member'), listed)).toBe(true);
    expect(mayManageThread(me('dave', 'member'), listed)).toBe(false);
    expect(mayManageThread(me('alice', 'host'), listed)).toBe(true);
    expect(
      maySeeThread(me('dave', 'member'), { ...listed, access: { ...access, use: access.manage } })
    ).toBe(false);
  });

  it("brings back the thread's last whole reply, as its model reads it", () => {
    const doc = roomDoc();
    const model = new RoomModel();
    model.setDocument(doc);
    expect(lastReply(model)).toBe('');
    addEntry(doc, { id: 'p1', kind: 'prompt', author: 'bob', body: 'try polars', state: 'done' });
    addEntry(doc, { id: 'a1', kind: 'assistant', body: 'First.', prompt_id: 'p1', state: 'done' });
    addEntry(doc, { id: 't1', kind: 'tool', prompt_id: 'p1', tool: 'bash', state: 'success' });
    addEntry(doc, {
      id: 'a2',
      kind: 'assistant',
      body: 'Polars wins.',
      prompt_id: 'p1',
      state: 'done'
    });
    expect(lastReply(model)).toBe('Polars wins.');
  });
});

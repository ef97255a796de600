import { describe, expect, it } from 'vitest';

import {
  documentSocket,
  errorFromResponse,
  refusalMessage,
  RoomAPIError,
  RoomClient,
  RoomDirectoryClient
} from '../src/api';
import { Fetch, settingsAnswering } from './fakeserver';

function clientAnswering(
  answer: Fetch,
  room?: string
): { client: RoomClient; requests: Request[] } {
  const { serverSettings, requests } = settingsAnswering(answer);
  return { client: new RoomClient({ serverSettings, room }), requests };
}

async function refusal(promise: Promise<unknown>): Promise<RoomAPIError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RoomAPIError);
    return error as RoomAPIError;
  }
  throw new Error('the request was not refused');
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('the REST client', () => {
  it('sends each command to its route with its body', async () => {
    const { client, requests } = clientAnswering(async () => json(202, { id: 'p1', position: 2 }));
    expect(await client.submit('hi', { kind: 'skill', name: 'review' })).toEqual({
      id: 'p1',
      position: 2
    });
    const { client: quiet, requests: more } = clientAnswering(
      async () => new Response(null, { status: 204 })
    );
    await quiet.withdraw('a b');
    await quiet.answerPermission('r1', false, 'not that file');
    await quiet.setRole('carol', 'member');
    const sent = [...requests, ...more];
    // (ServerConnection adds a cache-busting query.)
    expect(sent.map(r => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'POST http://lab.test/base/copilot-room/api/rooms/main/prompts',
      'DELETE http://lab.test/base/copilot-room/api/rooms/main/prompts/a%20b',
      'POST http://lab.test/base/copilot-room/api/rooms/main/approvals/r1',
      'PUT http://lab.test/base/copilot-room/api/rooms/main/participants/carol'
    ]);
    expect(await sent[0].json()).toEqual({ text: 'hi', target: { kind: 'skill', name: 'review' } });
    expect(await sent[2].json()).toEqual({ decision: 'reject', feedback: 'not that file' });
    expect(await sent[3].json()).toEqual({ role: 'member' });
  });

  it("passes the room's refusal on: its status, code and message", async () => {
    const { client } = clientAnswering(async () =>
      json(409, { error: 'already_aborting', message: 'This turn is already being stopped.' })
    );
    const error = await refusal(client.abort());
    expect([error.status, error.code, error.message]).toEqual([
      409,
      'already_aborting',
      'This turn is already being stopped.'
    ]);
  });

  it('says what happened when the answer is not the room speaking', async () => {
    const { client } = clientAnswering(
      async () => new Response('<html>XSRF cookie does not match</html>', { status: 403 })
    );
    const error = await refusal(client.remove('bob'));
    expect([error.status, error.code]).toEqual([403, 'http_403']);
    expect(error.message).toBe('The server refused this (403).');
  });

  it('takes jupyter_server own errors (`reason`, `message`) as they are', () => {
    const error = errorFromResponse(
      500,
      'Internal Server Error',
      JSON.stringify({ message: 'Unhandled error', reason: null })
    );
    expect([error.code, error.message]).toEqual(['http_500', 'Unhandled error']);
  });

  it('tells the person when the server cannot be reached', async () => {
    const { client } = clientAnswering(async () => {
      throw new TypeError('Failed to fetch');
    });
    const error = await refusal(client.withdraw('p1'));
    expect([error.status, error.code]).toEqual([0, 'network']);
    expect(refusalMessage(error)).toMatch(/^The server cannot be reached/);
  });

  it('turns anything thrown into words', () => {
    expect(refusalMessage(new Error('boom'))).toBe('boom');
    expect(refusalMessage('plain')).toBe('plain');
  });
});

describe('several rooms', () => {
  it("sends a room's commands to its own routes, and its document over its own socket", async () => {
    const { client, requests } = clientAnswering(async () => json(200, { me: null }), 'data-2');
    await client.room();
    await client.say('hello').catch(() => undefined);
    // The host claim and the Copilot sign-in are the server's, whichever room asks.
    await client.claimHost('s3cret');
    await client.signIn();
    expect(requests.map(r => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'GET http://lab.test/base/copilot-room/api/rooms/data-2/room',
      'POST http://lab.test/base/copilot-room/api/rooms/data-2/messages',
      'POST http://lab.test/base/copilot-room/api/claim',
      'GET http://lab.test/base/copilot-room/api/signin'
    ]);
    const socket = documentSocket(client.serverSettings, 'data-2');
    // y-websocket joins the two: ws://lab.test/base/copilot-room/ws/data-2
    expect(`${socket.url}/${socket.roomSegment}`).toBe('ws://lab.test/base/copilot-room/ws/data-2');
  });

  it('lists the rooms and creates one, passing the refusal on as the server words it', async () => {
    const entry = {
      name: 'analysis',
      repository: 'projects/analysis',
      state: 'no-agent',
      people: [],
      role: 'host',
      waiting_on_you: 0,
      created_by: 'alice'
    };
    const { serverSettings, requests } = settingsAnswering(async (input, init) =>
      (init?.method ?? (input as Request).method) === 'POST'
        ? json(201, entry)
        : json(200, { rooms: [entry] })
    );
    const directory = new RoomDirectoryClient(serverSettings);
    expect(await directory.list()).toEqual({ rooms: [entry] });
    expect(await directory.create('analysis', 'projects/analysis')).toEqual(entry);
    expect(requests.map(r => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'GET http://lab.test/base/copilot-room/api/rooms',
      'POST http://lab.test/base/copilot-room/api/rooms'
    ]);
    expect(await requests[1].json()).toEqual({ name: 'analysis', repository: 'projects/analysis' });

    const refusing = new RoomDirectoryClient(
      settingsAnswering(async () =>
        json(409, { error: 'room_exists', message: 'There is a room named analysis already.' })
      ).serverSettings
    );
    const error = await refusal(refusing.create('analysis', ''));
    expect([error.status, error.code, error.message]).toEqual([
      409,
      'room_exists',
      'There is a room named analysis already.'
    ]);
  });
});

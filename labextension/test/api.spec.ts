import { ServerConnection } from '@jupyterlab/services';
import { describe, expect, it } from 'vitest';

import { errorFromResponse, refusalMessage, RoomAPIError, RoomClient } from '../src/api';

type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

function clientAnswering(answer: Fetch): { client: RoomClient; requests: Request[] } {
  const requests: Request[] = [];
  const serverSettings = ServerConnection.makeSettings({
    baseUrl: 'http://lab.test/base/',
    wsUrl: 'ws://lab.test/base/',
    token: '',
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      requests.push(new Request(input, init));
      return answer(input, init);
    }) as typeof fetch
  });
  return { client: new RoomClient({ serverSettings }), requests };
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
      'POST http://lab.test/base/copilot-room/api/prompts',
      'DELETE http://lab.test/base/copilot-room/api/prompts/a%20b',
      'POST http://lab.test/base/copilot-room/api/approvals/r1',
      'PUT http://lab.test/base/copilot-room/api/participants/carol'
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

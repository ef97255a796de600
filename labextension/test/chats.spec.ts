/** Linking one's chat account (Slack): the words of the command and of the card with the code,
 * the server's `POST link-code`, and `GET room`'s `chats` in the read model. (The card itself
 * loads Lumino, which needs a browser: tests/browser/test_slack_panel.py.) */
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';

import { RoomAPIError, RoomClient } from '../src/api';
import {
  askText,
  channelHint,
  expiredText,
  lifetimeWords,
  linkCardText,
  linkChannelLabel,
  linkChatLabel,
  linkMessage,
  linkedText,
  serviceName,
  unlinkChannelLabel
} from '../src/chats';
import { IDocumentProvider, RoomConnection } from '../src/connection';
import { RoomModel } from '../src/model';
import { IRoomStatus } from '../src/types';
import { settingsAnswering } from './fakeserver';
import { me } from './roomdoc';

describe("the card's words", () => {
  it('names the service in the command, for Slack and for another', () => {
    expect(linkChatLabel('slack')).toBe('Link a Slack Account…');
    expect(linkChatLabel('teams')).toBe('Link a Teams Account…');
    expect(linkChatLabel('matrix')).toBe('Link a matrix Account…');
    expect(linkChatLabel(null)).toBe('Link a Chat Account…');
    expect(serviceName('constructor')).toBe('constructor');
  });

  it('says the exact message, where to send it and for how long the code works', () => {
    const text = linkCardText('slack', 'ABCD2345', 600, 'alice');
    expect(text.title).toBe('Link your Slack account');
    expect(text.message).toBe('link ABCD2345');
    expect(linkMessage('ABCD2345')).toBe(text.message);
    expect(text.where).toBe(
      "Send it to the room's bot in Slack, in a direct message or a mention. " +
        'The code works for 10 minutes.'
    );
    expect(text.after).toBe(
      "When it arrives, allow it here: only then does Slack act as alice, with alice's role."
    );
    expect(linkCardText('slack', 'X', 600).after).toBe(
      'When it arrives, allow it here: only then does Slack act as you, with your role.'
    );
    expect(askText({ service: 'slack', name: '@mallory' })).toBe(
      'Slack user @mallory asks to act as you.'
    );
    expect(linkedText({ service: 'teams', name: 'Dave D.' })).toBe(
      'Teams user Dave D. acts as you.'
    );
  });

  it('says a lifetime in whole minutes, or seconds under one, and nothing for none', () => {
    expect(lifetimeWords(600)).toBe('10 minutes');
    expect(lifetimeWords(60)).toBe('1 minute');
    expect(lifetimeWords(119)).toBe('1 minute');
    expect(lifetimeWords(45)).toBe('45 seconds');
    expect(lifetimeWords(1)).toBe('1 second');
    expect(lifetimeWords(0)).toBe('');
    expect(lifetimeWords(Number.NaN)).toBe('');
    expect(linkCardText('slack', 'X', 0).where).toBe(
      "Send it to the room's bot in Slack, in a direct message or a mention."
    );
    expect(expiredText('slack')).toBe(
      "This code expired. Get a new one, then send it to the room's bot in Slack."
    );
  });
});

describe('POST link-code', () => {
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

  it("is the server's, whichever room asks, with an empty body", async () => {
    const { serverSettings, requests } = settingsAnswering(async () =>
      json(200, { code: 'ABCD2345', expires_in: 600 })
    );
    const client = new RoomClient({ serverSettings, room: 'data-2' });
    expect(await client.linkCode()).toEqual({ code: 'ABCD2345', expires_in: 600 });
    expect(requests.map(r => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'POST http://lab.test/base/copilot-room/api/link-code'
    ]);
    expect(await requests[0].text()).toBe('');
  });

  it("passes the server's refusal on when it runs no chat bridge", async () => {
    const { serverSettings } = settingsAnswering(async () =>
      json(404, { error: 'no_bridge', message: 'This server runs no chat bridge.' })
    );
    const refused = await new RoomClient({ serverSettings }).linkCode().catch(e => e);
    expect(refused).toBeInstanceOf(RoomAPIError);
    expect(refused).toMatchObject({ status: 404, code: 'no_bridge' });
    expect(refused.message).toBe('This server runs no chat bridge.');
  });
});

describe('chat-links', () => {
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

  it("are the server's: listed, an ask answered, a link removed", async () => {
    const links = { links: [{ service: 'slack', user: 'U1', name: '@dave' }], asks: [] };
    const { serverSettings, requests } = settingsAnswering(async (_, init) =>
      (init?.method ?? 'GET') === 'GET' ? json(200, links) : new Response(null, { status: 204 })
    );
    const client = new RoomClient({ serverSettings, room: 'data-2' });
    expect(await client.chatLinks()).toEqual(links);
    await client.answerLinkAsk('a/1', 'deny');
    await client.unlinkChat('slack', 'U 1');
    expect(requests.map(r => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'GET http://lab.test/base/copilot-room/api/chat-links',
      'POST http://lab.test/base/copilot-room/api/chat-links/asks/a%2F1',
      'DELETE http://lab.test/base/copilot-room/api/chat-links/slack/U%201'
    ]);
    expect(await requests[1].json()).toEqual({ decision: 'deny' });
  });
});

describe("GET room's chats", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const provider = (): IDocumentProvider => ({ on: () => undefined, destroy: () => undefined });

  it('are in the model while the room names them, and none once it does not', async () => {
    vi.useFakeTimers();
    const answers: IRoomStatus[] = [
      { me: me('bob', 'member'), chats: ['slack'] },
      { me: me('bob', 'member') }
    ];
    const room = vi.fn(async () => answers.shift() ?? { me: me('bob', 'member') });
    const model = new RoomModel();
    const changes = vi.fn();
    model.changed.connect(changes);
    const connection = new RoomConnection({
      client: { room, leaveDoor: async () => undefined },
      model,
      provider,
      page: new EventTarget()
    });
    expect(model.chats).toEqual([]);
    await connection.refreshMe();
    expect(model.chats).toEqual(['slack']);
    const seen = changes.mock.calls.length;
    model.setChats(['slack']); // the same: no change
    expect(changes.mock.calls.length).toBe(seen);
    await connection.refreshMe();
    expect(model.chats).toEqual([]);
    model.setChats(['slack', 7 as unknown as string]);
    expect(model.chats).toEqual(['slack']);
    connection.dispose();
  });

  it("carry the room's channel in each bridged service, null where none is linked", async () => {
    const room = vi.fn(async () => ({
      me: me('alice', 'host'),
      chats: ['slack', 'teams'],
      channels: { slack: 'C0ROOM', teams: null }
    }));
    const model = new RoomModel();
    const connection = new RoomConnection({
      client: { room, leaveDoor: async () => undefined },
      model,
      provider,
      page: new EventTarget()
    });
    await connection.refreshMe();
    expect(model.channels).toEqual({ slack: 'C0ROOM', teams: null });

    // Another host changes them: the document says so, and the menu follows without a reload.
    const doc = new Y.Doc();
    model.setDocument(doc);
    const changes = vi.fn();
    model.changed.connect(changes);
    doc.getMap('meta').set('channels', { slack: null, teams: '19:a@thread.tacv2', irc: '#x' });
    expect(changes).toHaveBeenCalled();
    expect(model.channels).toEqual({ slack: null, teams: '19:a@thread.tacv2' });
    doc.getMap('meta').set('channels', { slack: 7 });
    expect(model.channels).toEqual({ slack: null, teams: null });
    model.setDocument(null);

    model.setChannels({ slack: 7 as unknown as string });
    expect(model.channels).toEqual({ slack: null });
    connection.dispose();
  });
});

describe("a host's channel commands", () => {
  it("say what they do, in the service's own words", () => {
    expect(linkChannelLabel('slack', null)).toBe('Link a Slack Channel…');
    expect(linkChannelLabel('teams', '19:a@thread.tacv2')).toBe('Change the Teams Channel…');
    expect(unlinkChannelLabel('slack', 'C0ROOM')).toBe('Unlink the Slack Channel (C0ROOM)');
    expect(channelHint('teams')).toContain('@thread.tacv2');
    expect(channelHint('slack')).toContain('Invite the bot');
  });

  it("PUT and DELETE the room's channel", async () => {
    const { serverSettings, requests } = settingsAnswering(async (_, init) =>
      init?.method === 'DELETE'
        ? new Response(null, { status: 204 })
        : Response.json({ service: 'slack', channel: 'C0NEW' })
    );
    const client = new RoomClient({ serverSettings, room: 'lab' });
    expect(await client.linkChannel('slack', 'C0NEW')).toEqual({
      service: 'slack',
      channel: 'C0NEW'
    });
    await client.unlinkChannel('slack');
    expect(requests.map(r => `${r.method} ${r.url.split('?')[0]}`)).toEqual([
      'PUT http://lab.test/base/copilot-room/api/rooms/lab/channels/slack',
      'DELETE http://lab.test/base/copilot-room/api/rooms/lab/channels/slack'
    ]);
    expect(await requests[0].json()).toEqual({ channel: 'C0NEW' });
  });
});

import { describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';

import { RoomModel } from '../src/model';
import { addCard, addEntry, addPerson, addQueued, me, roomDoc } from './roomdoc';

function modelOf(doc: Y.Doc): RoomModel {
  const model = new RoomModel();
  model.setDocument(doc);
  return model;
}

describe('the read model', () => {
  it('reads every transcript kind as its typed entry', () => {
    const doc = roomDoc();
    addEntry(doc, {
      id: 'p1',
      kind: 'prompt',
      author: 'bob',
      body: 'write the file',
      target: { kind: 'skill', name: 'review' },
      state: 'working'
    });
    addEntry(doc, { id: 'a1', kind: 'assistant', body: 'I will', prompt_id: 'p1', state: 'done' });
    addEntry(doc, { id: 'r1', kind: 'reasoning', body: 'hmm', prompt_id: 'p1', state: 'done' });
    addEntry(doc, {
      id: 't1',
      kind: 'tool',
      prompt_id: 'p1',
      tool: 'bash',
      summary: 'echo hi',
      arguments: { command: 'echo hi' },
      state: 'success',
      result: 'hi',
      duration: 0.25
    });
    addEntry(doc, { id: 's1', kind: 'subagent', body: 'tests', name: 'tester', state: 'error' });
    addEntry(doc, {
      id: 'q1',
      kind: 'permission',
      body: 'echo hi',
      request_kind: 'shell',
      prompt_author: 'bob',
      state: 'approved',
      answered_by: 'alice'
    });
    addEntry(doc, { id: 'x1', kind: 'system', author: null, body: 'The agent is ready.' });
    addEntry(doc, {
      id: 'x2',
      kind: 'admission',
      author: 'alice',
      body: 'alice admitted dave as a member.',
      username: 'dave',
      decision: 'member'
    });
    addEntry(doc, { id: 'x3', kind: 'error', body: 'It broke.', prompt_id: null });

    const entries = modelOf(doc).entries.map(source => source.read());

    expect(entries.map(e => e.kind)).toEqual([
      'prompt',
      'assistant',
      'reasoning',
      'tool',
      'subagent',
      'permission',
      'system',
      'admission',
      'error'
    ]);
    const [prompt, , , tool, , permission, system, admission] = entries;
    expect(prompt).toMatchObject({
      author: 'bob',
      body: 'write the file',
      target: { kind: 'skill', name: 'review' }
    });
    expect(tool).toMatchObject({ tool: 'bash', result: 'hi', duration: 0.25 });
    expect(permission).toMatchObject({ request_kind: 'shell', answered_by: 'alice' });
    expect(system.author).toBeNull();
    expect(admission).toMatchObject({ username: 'dave', decision: 'member' });
  });

  it('shows an entry of a kind it does not know as a system line', () => {
    const doc = roomDoc();
    addEntry(doc, { id: 'n1', kind: 'hologram', body: 'from the future' });
    const [entry] = modelOf(doc).entries.map(source => source.read());
    expect(entry).toMatchObject({ kind: 'system', body: 'from the future', id: 'n1' });
  });

  it('lets an entry be observed as its reply streams, without touching the list', () => {
    const doc = roomDoc();
    const map = addEntry(doc, { id: 'a1', kind: 'assistant', state: 'streaming', prompt_id: 'p' });
    const model = modelOf(doc);
    const [source] = model.entries;
    const seen: string[] = [];
    const listChanged = vi.fn();
    model.entriesChanged.connect(listChanged);
    const stop = source.observe(() => seen.push(source.read().body));

    const body = map.get('body') as Y.Text;
    body.insert(0, 'Hel');
    body.insert(3, 'lo');
    doc.transact(() => map.set('state', 'done'));
    stop();
    body.insert(5, '!');

    expect(seen).toEqual(['Hel', 'Hello', 'Hello']);
    expect(source.read()).toMatchObject({ body: 'Hello!', state: 'done' });
    expect(listChanged).not.toHaveBeenCalled();
    expect(model.entries[0]).toBe(source); // the same source for the same entry
  });

  it('signals added entries once per transaction', () => {
    const doc = roomDoc();
    const model = modelOf(doc);
    const listChanged = vi.fn();
    const changed = vi.fn();
    model.entriesChanged.connect(listChanged);
    model.changed.connect(changed);
    doc.transact(() => {
      addEntry(doc, { id: 'x1', kind: 'system', body: 'one' });
      addEntry(doc, { id: 'x2', kind: 'system', body: 'two' });
    });
    expect(listChanged).toHaveBeenCalledTimes(1);
    expect(changed).not.toHaveBeenCalled();
    expect(model.entries.map(e => e.id)).toEqual(['x1', 'x2']);
  });

  it('derives the queue, the cards and the people, and follows their changes', () => {
    const doc = roomDoc();
    addQueued(doc, { id: 'p1', author: 'alice', state: 'working', started_at: 1700000005 });
    addQueued(doc, { id: 'p2', author: 'bob', target: { kind: 'agent', name: 'tester' } });
    addCard(doc, 'req1', { kind: 'question', choices: ['blue', 'green'] });
    addPerson(doc, 'carol', { role: 'viewer', online: false });
    addPerson(doc, 'alice', { role: 'host' });
    doc.getMap('meta').set('state', 'waiting');
    const model = modelOf(doc);

    expect(model.queue.map(i => [i.id, i.author, i.state])).toEqual([
      ['p1', 'alice', 'working'],
      ['p2', 'bob', 'submitted']
    ]);
    expect(model.queue[1].target).toEqual({ kind: 'agent', name: 'tester' });
    expect(model.approvals).toEqual([
      expect.objectContaining({ id: 'req1', kind: 'question', choices: ['blue', 'green'] })
    ]);
    expect(model.participants.map(p => p.username)).toEqual(['alice', 'carol']);
    expect(model.person('carol')).toMatchObject({ display_name: 'Carol', online: false });
    expect(model.meta.state).toBe('waiting');

    const changed = vi.fn();
    model.changed.connect(changed);
    doc.transact(() => {
      doc.getArray('queue').delete(0, 1);
      doc.getMap('approvals').delete('req1');
      (doc.getMap('participants').get('carol') as Y.Map<unknown>).set('online', true);
      doc.getMap('meta').set('state', 'running');
    });
    expect(changed).toHaveBeenCalledTimes(1);
    expect(model.queue.map(i => i.id)).toEqual(['p2']);
    expect(model.approvals).toEqual([]);
    expect(model.person('carol')?.online).toBe(true);
    expect(model.meta.state).toBe('running');
  });

  it("names a side thread's people who never came to it as the room knows them", () => {
    const room = roomDoc();
    addPerson(room, 'alice', { display_name: 'Alice Renamed' });
    addPerson(room, 'bob', { display_name: 'Bob in the room' });
    const thread = roomDoc();
    addPerson(thread, 'bob', { display_name: 'Bob' });
    const roomModel = modelOf(room);
    const model = new RoomModel({ namesFrom: roomModel });
    model.setDocument(thread);

    expect(model.person('alice')?.display_name).toBe('Alice Renamed');
    expect(model.person('bob')?.display_name).toBe('Bob'); // the thread's own first
    expect(model.participants.map(p => p.username)).toEqual(['bob']); // nobody added to it
    expect(model.person('dave')).toBeUndefined();
  });

  it('forgets the old document when handed a new one', () => {
    const old = roomDoc();
    addEntry(old, { id: 'x1', kind: 'system', body: 'before the restart' });
    addPerson(old, 'bob', {});
    const model = modelOf(old);
    const fresh = roomDoc();
    addEntry(fresh, { id: 'x9', kind: 'system', body: 'after the restart' });
    const listChanged = vi.fn();
    model.entriesChanged.connect(listChanged);

    model.setDocument(fresh);
    addEntry(old, { id: 'x2', kind: 'system', body: 'an old copy changing' });

    expect(listChanged).toHaveBeenCalledTimes(1);
    expect(model.entries.map(e => e.read().body)).toEqual(['after the restart']);
    expect(model.participants).toEqual([]);
    model.setDocument(null);
    expect(model.entries).toEqual([]);
    expect(model.meta).toEqual({});
  });

  it('signals who I am and the connection only when they change', () => {
    const model = new RoomModel();
    const changed = vi.fn();
    model.changed.connect(changed);
    model.setMe(me('bob', 'member'));
    model.setMe(me('bob', 'member'));
    model.setConnection('online');
    model.setConnection('online');
    expect(changed).toHaveBeenCalledTimes(2);
    expect(model.me?.role).toBe('member');
    expect(model.connection).toBe('online');
  });
});

import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';

import { Attention, INeed, needsOf } from '../src/attention';
import { RoomModel } from '../src/model';
import { addCard, addPerson, answerers, me, roomDoc } from './roomdoc';

function room(): { doc: Y.Doc; model: RoomModel } {
  const doc = roomDoc();
  const model = new RoomModel();
  model.setDocument(doc);
  return { doc, model };
}

describe('what waits on the reader', () => {
  it('is the pending cards that wait on the reader, soonest first, then the door', () => {
    const { doc, model } = room();
    addCard(doc, 'late', { author: 'bob', deadline: 300 });
    addCard(doc, 'soon', { author: 'bob', kind: 'question', summary: 'Which?', deadline: 100 });
    addCard(doc, 'done', { author: 'bob', state: 'approved' });
    addCard(doc, 'carols', { author: 'carol' });
    addPerson(doc, 'dave', { role: 'pending', display_name: 'Dave' });

    const bob = needsOf(me('bob', 'member'), model.approvals, model.participants);
    expect(bob.map(n => n.key)).toEqual(['soon', 'late']);
    expect(bob[0].text).toBe('Copilot asks you: Which?');
    // Another agent in Copilot's place: its title says who waits.
    addCard(doc, 'claudes', { author: 'bob', summary: 'rm x', deadline: 50, agent: 'Claude' });
    const asked = needsOf(me('bob', 'member'), model.approvals, model.participants);
    expect(asked[0].text).toBe('Claude waits for your approval: rm x');

    // A host may answer any card, but a card waits on its author; arrivals wait on hosts.
    const alice = needsOf(me('alice', 'host'), model.approvals, model.participants);
    expect(alice).toEqual([
      {
        key: 'door:dave',
        kind: 'arrival',
        id: 'dave',
        text: 'Dave asks to join the Copilot room.'
      }
    ]);
    // A viewer cannot answer even a card of their own prompt; nobody outside sees anything.
    expect(needsOf(me('carol', 'viewer'), model.approvals, model.participants)).toEqual([]);
    expect(needsOf(null, model.approvals, model.participants)).toEqual([]);
  });

  it('stops waiting on whoever approved a card that needs two approvers', () => {
    const { doc, model } = room();
    addCard(doc, 'two', { author: 'bob', answerers: answerers(['bob'], ['host'], ['bob']) });
    expect(needsOf(me('bob', 'member'), model.approvals, model.participants)).toEqual([]);
    const alice = needsOf(me('alice', 'host'), model.approvals, model.participants);
    expect(alice.map(n => n.key)).toEqual(['two']);
  });

  it('notifies each need once, only while the panel is out of sight, and again if it returns', () => {
    const { doc, model } = room();
    let shown = false;
    const notified: string[] = [];
    const fresh: string[][] = [];
    model.setMe(me('alice', 'host'));
    const attention = new Attention(model, {
      isShown: () => shown,
      notify: (need: INeed) => notified.push(need.key)
    });
    attention.changed.connect((_, needs) => fresh.push(needs.map(n => n.key)));

    addPerson(doc, 'dave', { role: 'pending' });
    addPerson(doc, 'bob', { role: 'member' }); // a change that brings no new need
    expect(notified).toEqual(['door:dave']);
    expect(attention.needs.map(n => n.key)).toEqual(['door:dave']);

    shown = true;
    addPerson(doc, 'erin', { role: 'pending' });
    expect(notified).toEqual(['door:dave']); // the panel is open: shown there, not notified
    expect(fresh).toEqual([['door:dave'], ['door:erin']]);

    shown = false;
    doc.getMap('participants').delete('dave'); // admitted or gone
    expect(attention.needs.map(n => n.key)).toEqual(['door:erin']);
    addPerson(doc, 'dave', { role: 'pending' }); // asks again: a new arrival
    expect(notified).toEqual(['door:dave', 'door:dave']);
    attention.dispose();
  });

  it('steps through the needs for the next-card shortcut', () => {
    const { doc, model } = room();
    model.setMe(me('bob', 'member'));
    const attention = new Attention(model, { isShown: () => true, notify: () => undefined });
    expect(attention.next()).toBeUndefined();
    addCard(doc, 'c1', { author: 'bob', deadline: 1 });
    addCard(doc, 'c2', { author: 'bob', deadline: 2 });
    expect(attention.next()?.key).toBe('c1');
    expect(attention.next('c1')?.key).toBe('c2');
    expect(attention.next('c2')?.key).toBe('c1');
    expect(attention.next('gone')?.key).toBe('c1');
  });
});

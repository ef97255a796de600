import { describe, expect, it } from 'vitest';

import { RoomModel } from '../src/model';
import { Vouchers } from '../src/provenance';
import { addEntry, roomDoc } from './roomdoc';

function room(): RoomModel {
  const doc = roomDoc();
  addEntry(doc, { id: 'p1', kind: 'prompt', author: 'bob', state: 'completed', target: null });
  addEntry(doc, {
    id: 'call-1',
    kind: 'tool',
    prompt_id: 'p1',
    tool: 'notebook_insert_cell',
    summary: 'n.ipynb',
    arguments: {},
    state: 'success'
  });
  addEntry(doc, {
    id: 'call-2',
    kind: 'tool',
    prompt_id: 'p1',
    tool: 'bash',
    summary: 'ls',
    arguments: {},
    state: 'success'
  });
  const model = new RoomModel();
  model.setDocument(doc);
  return model;
}

const provenance = { prompt_id: 'p1', author: 'bob', turn: 1, tool_call_id: 'call-1', time: 0 };

function learned(...rooms: [string, RoomModel][]): Vouchers {
  const vouchers = new Vouchers();
  for (const [name, model] of rooms) {
    vouchers.learn(name, model);
  }
  return vouchers;
}

describe('provenance badges', () => {
  it('show where the room recorded that notebook tool call for that prompt and author', () => {
    expect(learned(['main', room()]).vouching(provenance)).toEqual({
      room: 'main',
      promptId: 'p1',
      author: 'bob',
      name: 'bob'
    });
  });

  it('do not show for metadata anyone could have written', () => {
    const vouchers = learned(['main', room()]);
    expect(vouchers.vouching(undefined)).toBeUndefined();
    expect(vouchers.vouching({ ...provenance, author: 'alice' })).toBeUndefined();
    expect(vouchers.vouching({ ...provenance, prompt_id: 'p2' })).toBeUndefined();
    expect(vouchers.vouching({ ...provenance, tool_call_id: 'call-2' })).toBeUndefined();
    expect(vouchers.vouching({ ...provenance, tool_call_id: 'made-up' })).toBeUndefined();
  });

  it('stay with a notebook after the page moved to another room', () => {
    const vouchers = learned(['main', room()], ['other', new RoomModel()]);
    expect(vouchers.vouching(provenance)?.room).toBe('main');
    expect(vouchers.learn('other', new RoomModel())).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';

import { RoomModel } from '../src/model';
import { notebookToolCalls, vouchedFor } from '../src/provenance';
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

describe('provenance badges', () => {
  it('show where the room recorded that notebook tool call for that prompt and author', () => {
    expect(vouchedFor(provenance, notebookToolCalls(room()))).toBe(true);
  });

  it('do not show for metadata anyone could have written', () => {
    const recorded = notebookToolCalls(room());
    expect(vouchedFor(undefined, recorded)).toBe(false);
    expect(vouchedFor({ ...provenance, author: 'alice' }, recorded)).toBe(false);
    expect(vouchedFor({ ...provenance, prompt_id: 'p2' }, recorded)).toBe(false);
    expect(vouchedFor({ ...provenance, tool_call_id: 'call-2' }, recorded)).toBe(false);
    expect(vouchedFor({ ...provenance, tool_call_id: 'made-up' }, recorded)).toBe(false);
  });
});

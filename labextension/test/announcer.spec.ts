import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';

import { Announcer, finishedParagraphs } from '../src/announcer';
import { RoomModel } from '../src/model';
import { addEntry, roomDoc } from './roomdoc';

describe('finished paragraphs', () => {
  it('are those followed by a blank line, and the rest once the reply ended', () => {
    expect(finishedParagraphs('One par', 0, false)).toEqual({ parts: [], upTo: 0 });
    expect(finishedParagraphs('One.\n\nTwo', 0, false)).toEqual({ parts: ['One.'], upTo: 6 });
    expect(finishedParagraphs('One.\n\nTwo is here', 6, false)).toEqual({ parts: [], upTo: 6 });
    expect(finishedParagraphs('One.\n\nTwo.\n\n\nThree', 6, true)).toEqual({
      parts: ['Two.', 'Three'],
      upTo: 18
    });
  });
});

describe('the announcer', () => {
  it('speaks a streaming reply paragraph by paragraph, never a delta, and no history', () => {
    const doc = roomDoc();
    addEntry(doc, { id: 'old', kind: 'assistant', body: 'Old reply.', state: 'done' });
    const model = new RoomModel();
    const spoken: string[] = [];
    const announcer = new Announcer(model, text => spoken.push(text));
    model.setDocument(doc);
    expect(spoken).toEqual([]);

    const reply = addEntry(doc, { id: 'new', kind: 'assistant', body: '', state: 'streaming' });
    const body = reply.get('body') as Y.Text;
    for (const delta of ['First ', 'para', 'graph.\n', '\nSecond', ' one', '.']) {
      body.insert(body.length, delta);
    }
    expect(spoken).toEqual(['First paragraph.']);
    reply.set('state', 'done');
    expect(spoken).toEqual(['First paragraph.', 'Second one.']);
    announcer.dispose();
    body.insert(body.length, '\n\nLate.');
    expect(spoken).toHaveLength(2);
  });
});

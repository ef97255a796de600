import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';

import { Announcer, finishedParagraphs } from '../src/announcer';
import { RoomModel } from '../src/model';
import { Pace } from '../src/pace';
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
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('speaks a streaming reply paragraph by paragraph, never a delta, and no history', () => {
    const doc = roomDoc();
    addEntry(doc, { id: 'old', kind: 'assistant', body: 'Old reply.', state: 'done' });
    const model = new RoomModel();
    const spoken: string[] = [];
    const announcer = new Announcer(model, batch => spoken.push(...batch), new Pace(50));
    model.setDocument(doc);
    expect(spoken).toEqual([]);

    const reply = addEntry(doc, { id: 'new', kind: 'assistant', body: '', state: 'streaming' });
    const body = reply.get('body') as Y.Text;
    for (const delta of ['First ', 'para', 'graph.\n', '\nSecond', ' one', '.']) {
      body.insert(body.length, delta);
    }
    expect(spoken).toEqual(['First paragraph.']);
    reply.set('state', 'done');
    vi.advanceTimersByTime(50);
    expect(spoken).toEqual(['First paragraph.', 'Second one.']);
    announcer.dispose();
    body.insert(body.length, '\n\nLate.');
    vi.runAllTimers();
    expect(spoken).toHaveLength(2);
  });

  it('speaks at most every 50 ms: each paragraph once, in order, those finished meanwhile together', () => {
    const doc = roomDoc();
    const model = new RoomModel();
    const said: { at: number; batch: string[] }[] = [];
    const announcer = new Announcer(
      model,
      batch => said.push({ at: Date.now(), batch }),
      new Pace(50)
    );
    model.setDocument(doc);
    const reply = addEntry(doc, { id: 'r', kind: 'assistant', body: '', state: 'streaming' });
    const body = reply.get('body') as Y.Text;
    const start = Date.now();
    // A delta every 20 ms, each finishing a paragraph; one delta finishes five at once.
    const deltas = ['P1.\n\n', 'P2.\n\n', 'P3.\n\nP4.\n\nP5.\n\nP6.\n\nP7.\n\n', 'P8.\n\n'];
    for (const delta of [...deltas, 'P9.']) {
      body.insert(body.length, delta);
      vi.advanceTimersByTime(20);
    }
    reply.set('state', 'done');
    vi.runAllTimers();
    expect(said.map(({ at, batch }) => ({ at: at - start, batch }))).toEqual([
      { at: 0, batch: ['P1.'] },
      { at: 50, batch: ['P2.', 'P3.', 'P4.', 'P5.', 'P6.', 'P7.'] },
      { at: 100, batch: ['P8.'] },
      { at: 150, batch: ['P9.'] }
    ]);
    announcer.dispose();
  });
});

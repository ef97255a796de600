import { describe, expect, it } from 'vitest';
import * as Y from 'yjs';

import { IHistoryPage, RoomAPIError } from '../src/api';
import { EarlierHistory } from '../src/history';
import { RoomModel } from '../src/model';
import { addEntry, roomDoc } from './roomdoc';

/** The room's transcript, entry `n` created by record seq `2n` (not every record makes one). */
function entry(n: number): Record<string, unknown> & { id: string; kind: string; body: string } {
  return { id: `e${n}`, kind: 'system', body: `line ${n}`, seq: 2 * n, author: null, ts: n };
}

/** The server's `GET history` over the whole transcript of `count` entries. */
class History {
  constructor(readonly count: number) {}
  requests: [number, number][] = [];
  fail = false;

  async history(before: number, limit: number): Promise<IHistoryPage> {
    this.requests.push([before, limit]);
    if (this.fail) {
      throw new RoomAPIError(0, 'network', 'The server cannot be reached.');
    }
    const older = Array.from({ length: this.count }, (_, i) => entry(i + 1)).filter(
      e => (e.seq as number) < before
    );
    const page = older.slice(-limit);
    return { entries: page, more: older.length > page.length };
  }
}

/** A document showing the live window: entries `from`..`to`. */
function windowDoc(from: number, to: number): Y.Doc {
  const doc = roomDoc();
  for (let n = from; n <= to; n++) {
    addEntry(doc, entry(n));
  }
  return doc;
}

const ids = (model: RoomModel) => model.entries.map(source => source.id);
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `e${from + i}`);
const settle = () => new Promise(resolve => setTimeout(resolve, 0));

describe('earlier history beyond the live window', () => {
  it('is offered after one question, then loaded page by page until all is shown', async () => {
    const server = new History(80);
    const model = new RoomModel();
    const history = new EarlierHistory({ client: server, model, page: 25 });
    model.setDocument(windowDoc(61, 80));
    await settle();
    expect(server.requests).toEqual([[122, 1]]); // one entry's worth: is there anything?
    expect(history.available).toBe(true);

    expect(await history.loadPage()).toBe(25);
    expect(ids(model)).toEqual(range(36, 80));
    expect(history.available).toBe(true);
    await history.loadPage();
    expect(await history.loadPage()).toBe(10);
    expect(ids(model)).toEqual(range(1, 80)); // in order, each once
    expect(history.available).toBe(false);
    expect(server.requests.slice(1)).toEqual([
      [122, 25],
      [72, 25],
      [22, 25]
    ]);
    // Loaded entries read as the live ones do.
    expect(model.entries[0].read()).toMatchObject({ id: 'e1', kind: 'system', body: 'line 1' });
  });

  it('is not offered when the document holds the whole transcript', async () => {
    const server = new History(20);
    const model = new RoomModel();
    const history = new EarlierHistory({ client: server, model });
    model.setDocument(windowDoc(1, 20));
    await settle();
    expect(history.available).toBe(false);
    // New entries do not ask again.
    addEntry((model as unknown as { _doc: Y.Doc })._doc, entry(21));
    await settle();
    expect(server.requests).toHaveLength(1);
  });

  it('is offered without asking once the window drops its oldest entry', async () => {
    const server = new History(30);
    const model = new RoomModel();
    const history = new EarlierHistory({ client: server, model });
    const doc = windowDoc(1, 20);
    model.setDocument(doc);
    await settle();
    expect(history.available).toBe(false);
    doc.transact(() => {
      doc.getArray('transcript').delete(0, 1);
      addEntry(doc, entry(21));
    });
    await settle();
    expect(history.available).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it('stays shown across a resync, meets the new window and shows nothing twice', async () => {
    const server = new History(100);
    const model = new RoomModel();
    const history = new EarlierHistory({ client: server, model, page: 30 });
    model.setDocument(windowDoc(61, 80));
    await settle();
    await history.loadPage();
    expect(ids(model)).toEqual(range(31, 80));
    // The server compacted its document while 20 entries came: the new window is 81..100, and
    // 61..80 are history now.
    model.setDocument(windowDoc(81, 100));
    await settle();
    await settle();
    expect(ids(model)).toEqual(range(31, 100));
    // A window that overlaps what was loaded (a larger one after a restart) shows each once.
    model.setDocument(windowDoc(51, 100));
    await settle();
    expect(ids(model)).toEqual(range(31, 100));
    await history.loadPage();
    expect(ids(model)).toEqual(range(1, 100));
    // Leaving the room (no document) forgets it all.
    model.setDocument(null);
    expect(ids(model)).toEqual([]);
    expect(history.available).toBe(false);
  });

  it('says why a page could not be loaded, and loads it when asked again', async () => {
    const server = new History(40);
    const model = new RoomModel();
    const history = new EarlierHistory({ client: server, model });
    model.setDocument(windowDoc(21, 40));
    await settle();
    server.fail = true;
    await expect(history.loadPage()).rejects.toThrow('cannot be reached');
    expect(ids(model)).toEqual(range(21, 40));
    server.fail = false;
    await history.loadPage();
    expect(ids(model)).toEqual(range(1, 40));
  });

  it('is never asked for when the entries carry no seq (a server without history)', async () => {
    const server = new History(0);
    const model = new RoomModel();
    const history = new EarlierHistory({ client: server, model });
    const doc = roomDoc();
    addEntry(doc, { id: 'old', kind: 'system', body: 'hi' });
    model.setDocument(doc);
    await settle();
    expect(server.requests).toEqual([]);
    expect(history.available).toBe(false);
  });
});

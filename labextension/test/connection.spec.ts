import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as Y from 'yjs';

import {
  Backoff,
  DOOR_POLL_MS,
  ICloseInfo,
  IDocumentProvider,
  RoomConnection
} from '../src/connection';
import { RoomModel } from '../src/model';
import { IRoomStatus } from '../src/types';
import { addEntry, addPerson, me } from './roomdoc';

describe('the backoff', () => {
  it('doubles from half a second up to five, and starts over after a success', () => {
    const backoff = new Backoff();
    const delays = Array.from({ length: 6 }, () => backoff.next());
    expect(delays).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    backoff.reset();
    expect(backoff.next()).toBe(500);
  });
});

/** A provider that does what the test says: sync, or close. */
class FakeProvider implements IDocumentProvider {
  constructor(readonly doc: Y.Doc) {}
  on(event: 'sync', listener: (synced: boolean) => void): void;
  on(event: 'connection-close', listener: (event: ICloseInfo | null) => void): void;
  on(event: string, listener: (arg: never) => void): void {
    this.listeners.set(event, listener as (arg: unknown) => void);
  }
  sync(fill?: (doc: Y.Doc) => void): void {
    fill?.(this.doc);
    this.listeners.get('sync')?.(true);
  }
  /** The socket closes, with the server's code if it sent one. */
  close(code?: number): void {
    this.listeners.get('connection-close')?.(code === undefined ? null : { code });
  }
  destroy(): void {
    this.destroyed = true;
  }
  destroyed = false;
  listeners = new Map<string, (arg: unknown) => void>();
}

describe('the connection', () => {
  let providers: FakeProvider[];
  let room: ReturnType<typeof vi.fn<() => Promise<IRoomStatus>>>;
  let leaveDoor: ReturnType<typeof vi.fn<() => Promise<void>>>;
  let page: EventTarget;
  let model: RoomModel;
  let connection: RoomConnection;

  beforeEach(() => {
    vi.useFakeTimers();
    providers = [];
    room = vi.fn<() => Promise<IRoomStatus>>(async () => ({ me: me('bob', 'member') }));
    leaveDoor = vi.fn<() => Promise<void>>(async () => undefined);
    page = new EventTarget();
    model = new RoomModel();
    connection = new RoomConnection({
      client: { room, leaveDoor },
      page,
      model,
      provider: doc => {
        const provider = new FakeProvider(doc);
        providers.push(provider);
        return provider;
      }
    });
  });

  afterEach(() => {
    connection.dispose();
    vi.useRealTimers();
  });

  /** Let the pending `GET room` answer. */
  const settle = () => vi.advanceTimersByTimeAsync(0);

  it('connects an admitted person and shows the document once it synced', async () => {
    connection.start();
    await settle();
    expect(model.me?.username).toBe('bob');
    expect(model.connection).toBe('connecting');
    expect(providers).toHaveLength(1);
    providers[0].sync(doc => addEntry(doc, { id: 'x1', kind: 'system', body: 'hello' }));
    expect(model.connection).toBe('online');
    expect(model.entries.map(e => e.read().body)).toEqual(['hello']);
  });

  it('retries after 0.5, 1, 2, 4, 5, 5 s with a fresh document each time', async () => {
    connection.start();
    await settle();
    providers[0].sync(doc => addEntry(doc, { id: 'x1', kind: 'system', body: 'before' }));
    const waits: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const count = providers.length;
      providers[count - 1].close();
      expect(model.connection).toBe('offline');
      let waited = 0;
      while (providers.length === count) {
        await vi.advanceTimersByTimeAsync(100);
        waited += 100;
      }
      waits.push(waited);
    }
    expect(waits).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
    const docs = new Set(providers.map(p => p.doc));
    expect(docs.size).toBe(providers.length);
    // The old document stays on screen, marked offline, until a new one synced.
    expect(model.entries.map(e => e.read().body)).toEqual(['before']);
    const last = providers[providers.length - 1];
    last.sync(doc => addEntry(doc, { id: 'x7', kind: 'system', body: 'after' }));
    expect(model.connection).toBe('online');
    expect(model.entries.map(e => e.read().body)).toEqual(['after']);
    expect(providers[0].doc.isDestroyed).toBe(true);
    // ...and after a success the schedule starts over.
    last.close();
    await vi.advanceTimersByTimeAsync(499);
    expect(providers[providers.length - 1]).toBe(last);
    await vi.advanceTimersByTimeAsync(1);
    expect(providers[providers.length - 1]).not.toBe(last);
  });

  it.each([4002, 4008])(
    'reconnects at once, with a fresh document, when the server closes with %i',
    async code => {
      connection.start();
      await settle();
      providers[0].sync(doc => addEntry(doc, { id: 'x1', kind: 'system', body: 'before' }));
      providers[0].close(1006); // an ordinary drop first: the backoff grows...
      await vi.advanceTimersByTimeAsync(500);
      providers[1].close(code); // ...which the server's request for a fresh sync skips
      await settle();
      expect(providers).toHaveLength(3);
      expect(providers[2].doc).not.toBe(providers[0].doc);
      providers[2].sync(doc => addEntry(doc, { id: 'x2', kind: 'system', body: 'after' }));
      expect(model.connection).toBe('online');
      expect(model.entries.map(e => e.read().body)).toEqual(['after']);
    }
  );

  it('keeps someone at the door asking, and connects once a host let them in', async () => {
    room.mockResolvedValue({ me: me('dave', 'pending') });
    connection.start();
    await settle();
    expect(model.connection).toBe('outside');
    expect(providers).toHaveLength(0);
    room.mockResolvedValue({ me: me('dave', 'member') });
    await vi.advanceTimersByTimeAsync(DOOR_POLL_MS);
    expect(model.me?.role).toBe('member');
    expect(providers).toHaveLength(1);
  });

  it('says it left the door when its page goes, and only while it waits there', async () => {
    room.mockResolvedValue({ me: me('dave', 'pending') });
    connection.start();
    await settle();
    page.dispatchEvent(new Event('pagehide'));
    expect(leaveDoor).toHaveBeenCalledTimes(1);

    room.mockResolvedValue({ me: me('dave', 'member') });
    await vi.advanceTimersByTimeAsync(DOOR_POLL_MS);
    page.dispatchEvent(new Event('pagehide'));
    connection.dispose();
    expect(leaveDoor).toHaveBeenCalledTimes(1); // let in: no knock to take away
  });

  it('says it left the door when the panel stops showing the room', async () => {
    room.mockResolvedValue({ me: me('dave', 'pending') });
    connection.start();
    await settle();
    connection.dispose();
    page.dispatchEvent(new Event('pagehide'));
    expect(leaveDoor).toHaveBeenCalledTimes(1);
  });

  it('asks again when my role changes in the document, and leaves when I am removed', async () => {
    connection.start();
    await settle();
    providers[0].sync(doc => addPerson(doc, 'bob', { role: 'member' }));
    room.mockResolvedValue({ me: me('bob', 'viewer') });
    (providers[0].doc.getMap('participants').get('bob') as Y.Map<unknown>).set('role', 'viewer');
    await settle();
    expect(model.me?.can).toEqual(['watch']);

    room.mockResolvedValue({ me: me('bob', 'refused') });
    (providers[0].doc.getMap('participants').get('bob') as Y.Map<unknown>).set('role', 'refused');
    await settle();
    expect(providers[0].destroyed).toBe(true);
    expect(model.me?.role).toBe('refused');
    expect(model.connection).toBe('outside');
    expect(model.participants).toEqual([]);
  });

  it('is offline while the server cannot be reached', async () => {
    room.mockRejectedValue(new Error('down'));
    connection.start();
    await settle();
    expect(model.connection).toBe('offline');
  });
});

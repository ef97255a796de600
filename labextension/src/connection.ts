/**
 * The connection to the room: asks the server who the caller is (`GET room`), keeps asking while
 * they wait at the door, and for people inside keeps one live document synced over the room's
 * websocket, reconnecting with a growing delay when it closes (at once when the server closed it
 * to have it sync afresh). It feeds the read model
 * (`RoomModel`) and owns nothing the views read directly.
 *
 * Every (re)connection starts from a fresh `Y.Doc`: after a server restart the room document is
 * rebuilt from the transcript with new item ids, and merging it into an old local copy would
 * duplicate everything. The old document stays on screen (marked offline) until the new one has
 * synced.
 */
import { IDisposable } from '@lumino/disposable';
import * as Y from 'yjs';

import { IRoomClient } from './api';
import { RESYNC_CLOSE_CODES } from './generated/declarations';
import { RoomModel } from './model';
import { isAdmitted, isAtTheDoor, sameRole } from './policy';

/** What the connection reads of a websocket's close event. */
export interface ICloseInfo {
  code: number;
}

/** A document provider (y-websocket's, or a fake in tests) for one connection attempt. */
export interface IDocumentProvider {
  on(event: 'sync', listener: (synced: boolean) => void): void;
  on(event: 'connection-close', listener: (event: ICloseInfo | null) => void): void;
  destroy(): void;
}

/**
 * Close codes after which the panel reconnects at once: the server compacted the room document
 * (4002) or closed a socket that fell behind (4008). Both say the server is there and wants a
 * fresh sync, so waiting would only leave the panel stale.
 */
export const RECONNECT_AT_ONCE: ReadonlySet<number> = new Set(RESYNC_CLOSE_CODES);

export type ProviderFactory = (doc: Y.Doc) => IDocumentProvider;

/** How long to wait before the next attempt: doubling from `first` up to `max`. */
export class Backoff {
  constructor(
    readonly first = 500,
    readonly max = 5000
  ) {
    this._delay = first;
  }

  next(): number {
    const delay = this._delay;
    this._delay = Math.min(delay * 2, this.max);
    return delay;
  }

  reset(): void {
    this._delay = this.first;
  }

  private _delay: number;
}

/** How often someone at the door asks whether a host let them in. */
export const DOOR_POLL_MS = 2000;

/** Where the page says it is going away (`window`; a fake in tests). */
export type PageEvents = Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;

export class RoomConnection implements IDisposable {
  constructor(options: {
    client: Pick<IRoomClient, 'room' | 'leaveDoor'>;
    model: RoomModel;
    provider: ProviderFactory;
    backoff?: Backoff;
    page?: PageEvents;
  }) {
    this._client = options.client;
    this._model = options.model;
    this._provider = options.provider;
    this._backoff = options.backoff ?? new Backoff();
    this._page = options.page ?? (typeof window === 'undefined' ? null : window);
    this._page?.addEventListener('pagehide', this._leaveDoor);
    this._model.changed.connect(this._onModelChanged, this);
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  /** Ask who I am, then connect (or wait at the door). */
  start(): void {
    void this._start();
  }

  /** Ask the server again who I am and what I may do. */
  async refreshMe(): Promise<void> {
    try {
      const { me, chats, channels } = await this._client.room();
      if (!this._disposed) {
        this._model.setMe(me);
        this._model.setChats(chats);
        this._model.setChannels(channels);
      }
    } catch {
      if (!this._disposed) {
        this._model.setConnection('offline');
      }
    }
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._leaveDoor(); // the panel shows another room, or closed
    this._disposed = true;
    this._page?.removeEventListener('pagehide', this._leaveDoor);
    clearTimeout(this._timer);
    this._model.changed.disconnect(this._onModelChanged, this);
    this._close();
    this._model.setDocument(null);
    this._shown?.destroy();
    this._shown = null;
  }

  private async _start(): Promise<void> {
    await this.refreshMe();
    if (this._disposed) {
      return;
    }
    const me = this._model.me;
    if (me && isAdmitted(me)) {
      this._connect();
    } else {
      this._model.setConnection(me ? 'outside' : 'offline');
      this._retry(DOOR_POLL_MS);
    }
  }

  private _connect(): void {
    this._close();
    const doc = new Y.Doc();
    const provider = this._provider(doc);
    this._attempt = { doc, provider };
    if (this._model.connection !== 'offline') {
      this._model.setConnection('connecting'); // offline stays offline until a sync succeeds
    }
    provider.on('sync', synced => {
      if (synced && this._attempt?.provider === provider) {
        this._backoff.reset();
        this._show(doc);
        this._model.setConnection('online');
      }
    });
    // Every close, also of an attempt that never opened: offline, and try again later (at once
    // when the server asked for a fresh sync).
    provider.on('connection-close', event => {
      if (this._attempt?.provider === provider) {
        this._model.setConnection('offline');
        if (event && RECONNECT_AT_ONCE.has(event.code)) {
          this._backoff.reset();
          this._retry(0);
        } else {
          this._retry(this._backoff.next());
        }
      }
    });
  }

  /** Hand `doc` to the model; the document it showed before is done with. */
  private _show(doc: Y.Doc | null): void {
    const previous = this._shown;
    this._shown = doc;
    this._model.setDocument(doc);
    if (previous && previous !== doc) {
      previous.destroy();
    }
  }

  /** My role in the document changed: what I may do changes too, or I am out. */
  private _onModelChanged(): void {
    const me = this._model.me;
    const mine = me && this._model.person(me.username);
    if (!me || !mine || sameRole(mine, me) || this._disposed) {
      return;
    }
    void this.refreshMe();
    if (!isAdmitted(mine)) {
      this._close();
      this._show(null);
      this._retry(0);
    }
  }

  /** Waiting at the door when the page or the panel goes: say so, so the hosts' card goes now
   * rather than when my knock runs out (`room/people/door.py`). */
  private _leaveDoor = (): void => {
    if (!this._disposed && isAtTheDoor(this._model.me)) {
      this._client.leaveDoor().catch(() => undefined); // the knock runs out by itself then
    }
  };

  private _retry(delay: number): void {
    clearTimeout(this._timer);
    this._timer = setTimeout(() => void this._start(), delay);
  }

  /** Stop the current attempt; a document not yet shown goes with it. */
  private _close(): void {
    const attempt = this._attempt;
    this._attempt = null;
    if (attempt) {
      attempt.provider.destroy();
      if (attempt.doc !== this._shown) {
        attempt.doc.destroy();
      }
    }
  }

  private _client: Pick<IRoomClient, 'room' | 'leaveDoor'>;
  private _page: PageEvents | null;
  private _model: RoomModel;
  private _provider: ProviderFactory;
  private _backoff: Backoff;
  private _attempt: { doc: Y.Doc; provider: IDocumentProvider } | null = null;
  private _shown: Y.Doc | null = null;
  private _timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private _disposed = false;
}

/**
 * Earlier history, on request. The live document holds only the room's newest entries (a window
 * the server keeps); older ones are read page by page from `GET history?before=SEQ&limit=N` and
 * handed to the read model (`RoomModel.addEarlier`), which shows them before the live entries and
 * keeps them across a resync.
 *
 * Whether there is anything earlier is asked once (one entry's worth) when the room is first
 * shown; later it follows from what is seen: a page says `more`, and a live window whose oldest
 * entry moves on (the server dropped entries from the document) has earlier history for sure.
 * Entries that leave the live window after pages were loaded are fetched again, so the loaded
 * pages and the live window always meet.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import { IRoomClient } from './api';
import { readEntry } from './entries';
import { RoomModel } from './model';

/** How many entries "Show earlier" loads at a time. */
export const HISTORY_PAGE = 100;

/** What the transcript view needs of earlier history. */
export interface IEarlierHistory {
  /** The server has entries older than any shown. */
  readonly available: boolean;
  /** `available` changed. */
  readonly changed: ISignal<IEarlierHistory, void>;
  /** Load the next page of earlier entries into the model; how many were added. Throws a
   * `RoomAPIError` when the server refuses or cannot be reached. */
  loadPage(): Promise<number>;
}

export class EarlierHistory implements IEarlierHistory, IDisposable {
  constructor(options: { client: Pick<IRoomClient, 'history'>; model: RoomModel; page?: number }) {
    this._client = options.client;
    this._model = options.model;
    this._page = options.page ?? HISTORY_PAGE;
    this._model.entriesChanged.connect(this._onEntries, this);
    this._onEntries();
  }

  get available(): boolean {
    return this._available;
  }

  get changed(): ISignal<IEarlierHistory, void> {
    return this._changed;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  async loadPage(): Promise<number> {
    const oldest = this._model.entries[0]?.read().seq;
    if (typeof oldest !== 'number') {
      return 0;
    }
    // Before the first page, the live window is where loaded history has to meet it.
    this._boundary ??= this._model.oldestLive()?.seq ?? oldest;
    const page = await this._client.history(oldest, this._page);
    if (this._disposed) {
      return 0;
    }
    const before = this._model.entries.length;
    this._model.addEarlier(page.entries.map(readEntry));
    this._setAvailable(page.more);
    return this._model.entries.length - before;
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._model.entriesChanged.disconnect(this._onEntries, this);
    Signal.clearData(this);
  }

  /** The live document changed: a first look, a window that moved, or no document at all. */
  private _onEntries(): void {
    const live = this._model.oldestLive();
    const previous = this._live;
    this._live = live;
    if (!live) {
      if (!this._model.entries.length) {
        this._boundary = null; // no document: the model dropped its earlier entries too
        this._setAvailable(false);
      }
      return;
    }
    if (previous && previous.seq === live.seq) {
      return;
    }
    if (this._boundary !== null) {
      void this._fill();
    } else if (previous && previous.seq < live.seq) {
      this._setAvailable(true); // what was the oldest entry is history now
    } else {
      void this._probe(live.seq);
    }
  }

  /** Whether anything is older than `seq` (one request each time the room is first seen). */
  private async _probe(seq: number): Promise<void> {
    try {
      const page = await this._client.history(seq, 1);
      if (!this._disposed && this._live?.seq === seq && this._boundary === null) {
        this._setAvailable(page.entries.length > 0);
      }
    } catch {
      // A server without history, or out of reach: offer nothing.
    }
  }

  /** Entries that left the live window after pages were loaded: fetch them again (newest
   * pages first) down to the boundary, so loaded history and the live window meet. */
  private async _fill(): Promise<void> {
    if (this._filling) {
      return;
    }
    this._filling = true;
    try {
      let live = this._model.oldestLive();
      while (!this._disposed && live && this._boundary !== null && live.seq > this._boundary) {
        const target = live.seq;
        let before = target;
        const found = [];
        for (;;) {
          const page = await this._client.history(before, this._page);
          const fresh = page.entries.map(readEntry).filter(e => (e.seq ?? 0) >= this._boundary!);
          found.push(...fresh);
          if (!page.more || fresh.length < page.entries.length || !fresh.length) {
            break;
          }
          before = fresh[0].seq ?? 0;
        }
        if (this._disposed) {
          return;
        }
        this._boundary = target;
        this._model.addEarlier(found);
        live = this._model.oldestLive();
      }
    } catch {
      // Out of reach for now: the next change of the live window tries again.
    } finally {
      this._filling = false;
    }
  }

  private _setAvailable(available: boolean): void {
    if (available !== this._available) {
      this._available = available;
      this._changed.emit();
    }
  }

  private _client: Pick<IRoomClient, 'history'>;
  private _model: RoomModel;
  private _page: number;
  /** Loaded history is complete from its oldest entry up to (not including) this seq. */
  private _boundary: number | null = null;
  private _live: { id: string; seq: number } | null = null;
  private _available = false;
  private _filling = false;
  private _disposed = false;
  private _changed = new Signal<IEarlierHistory, void>(this);
}

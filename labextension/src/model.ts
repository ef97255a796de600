/**
 * The room as the panel reads it. `IRoomModel` is what every view is typed against: the caller
 * (`GET room`'s `me`), the connection's status and the live document's roots as plain typed
 * data, with signals. `RoomModel` derives that from a `Y.Doc` it is handed; it never writes the
 * document, opens no socket and makes no request (see `connection.ts` and `api.ts`).
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import * as Y from 'yjs';

import { bidiShown } from './bidi';
import { readEntry, TranscriptEntry } from './entries';
import { hiddenIn, textsOf } from './hidden';
import { IApproval, IMe, IMeta, IParticipant, IQueueItem } from './types';

/** `outside`: the caller is not admitted (waiting at the door, or turned away). */
export type ConnectionStatus = 'connecting' | 'online' | 'offline' | 'outside';

/** One transcript entry, live: read it when it changes (a reply streams into its body). */
export interface IEntrySource {
  readonly id: string;
  read(): TranscriptEntry;
  /** Call `listener` after each change of this entry; returns what stops it. */
  observe(listener: () => void): () => void;
}

export interface IRoomModel {
  /** The caller, their role and what they may do; null until the server said. */
  readonly me: IMe | null;
  readonly connection: ConnectionStatus;
  /** The chat services whose account the caller may link (`GET room`'s `chats`): none unless
   * the server runs a chat bridge and the caller is admitted. */
  readonly chats: readonly string[];
  /** The room's channel in each bridged chat service (null: none): `GET room`'s `channels`, and
   * a host's later change as the document's `meta.channels` says it. */
  readonly channels: Readonly<Record<string, string | null>>;
  /** The channels as the caller's own link or unlink left them, until `GET room` says again. */
  setChannels(channels: Readonly<Record<string, string | null>> | null | undefined): void;
  readonly meta: IMeta;
  /** The running prompt first, then the waiting ones in order. */
  readonly queue: readonly IQueueItem[];
  /** Permission requests and questions waiting for an answer. */
  readonly approvals: readonly IApproval[];
  /** Everyone the room has seen, by username. */
  readonly participants: readonly IParticipant[];
  /** The transcript: earlier history loaded on request (`history.ts`), then the live document's
   * entries (its newest ones only: the server keeps a window of them). */
  readonly entries: readonly IEntrySource[];
  person(username: string): IParticipant | undefined;
  /** `me`, the connection, meta, queue, approvals or participants changed. */
  readonly changed: ISignal<IRoomModel, void>;
  /** Entries were added, or a new document replaced the old one. */
  readonly entriesChanged: ISignal<IRoomModel, void>;
  /** This page sent a prompt or a message: the transcript takes its sender to the newest
   * entry, wherever they had scrolled. */
  readonly sent: ISignal<IRoomModel, void>;
  markSent(): void;
}

type Root = 'meta' | 'participants' | 'queue' | 'approvals' | 'transcript';

export class RoomModel implements IRoomModel, IDisposable {
  /** `namesFrom`: a side thread's model names the people its lines mention who never came to
   * it (the turn it forked after, its owner's hosts) as the room knows them. */
  constructor(options: { namesFrom?: IRoomModel } = {}) {
    this._namesFrom = options.namesFrom ?? null;
  }

  get me(): IMe | null {
    return this._me;
  }

  get connection(): ConnectionStatus {
    return this._connection;
  }

  get chats(): readonly string[] {
    return this._chats;
  }

  get channels(): Readonly<Record<string, string | null>> {
    const changed = this.meta.channels ?? {};
    const channels = { ...this._channels };
    for (const service of Object.keys(channels)) {
      if (service in changed) {
        const channel = changed[service];
        channels[service] = typeof channel === 'string' ? channel : null;
      }
    }
    return channels;
  }

  get meta(): IMeta {
    return (this._meta ??= (this._doc?.getMap('meta').toJSON() ?? {}) as IMeta);
  }

  get queue(): readonly IQueueItem[] {
    return (this._queue ??= readQueue(this._doc));
  }

  get approvals(): readonly IApproval[] {
    return (this._approvals ??= readApprovals(this._doc));
  }

  get participants(): readonly IParticipant[] {
    return (this._participants ??= readParticipants(this._doc));
  }

  get entries(): readonly IEntrySource[] {
    return (this._entries ??= this._readEntries());
  }

  person(username: string): IParticipant | undefined {
    return (
      this.participants.find(p => p.username === username) ?? this._namesFrom?.person(username)
    );
  }

  get changed(): ISignal<IRoomModel, void> {
    return this._changed;
  }

  get entriesChanged(): ISignal<IRoomModel, void> {
    return this._entriesChanged;
  }

  get sent(): ISignal<IRoomModel, void> {
    return this._sent;
  }

  markSent(): void {
    this._sent.emit();
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  // -- fed by the connection ----------------------------------------------------------------

  setMe(me: IMe | null): void {
    if (JSON.stringify(me) !== JSON.stringify(this._me)) {
      this._me = me;
      this._changed.emit();
    }
  }

  setChats(chats: readonly string[] | null | undefined): void {
    const now = Array.isArray(chats) ? chats.filter(chat => typeof chat === 'string') : [];
    if (now.join('\n') !== this._chats.join('\n')) {
      this._chats = now;
      this._changed.emit();
    }
  }

  setChannels(channels: Readonly<Record<string, string | null>> | null | undefined): void {
    const now: Record<string, string | null> = {};
    for (const [service, channel] of Object.entries(channels ?? {})) {
      now[service] = typeof channel === 'string' ? channel : null;
    }
    if (JSON.stringify(now) !== JSON.stringify(this._channels)) {
      this._channels = now;
      this._changed.emit();
    }
  }

  setConnection(connection: ConnectionStatus): void {
    if (connection !== this._connection) {
      this._connection = connection;
      this._changed.emit();
    }
  }

  /** The live document's oldest entry (the start of the server's window), if it has a seq. */
  oldestLive(): { id: string; seq: number } | null {
    const first = this._doc?.getArray<Y.Map<unknown>>('transcript').get(0);
    const seq = first?.get('seq');
    return first && typeof seq === 'number' ? { id: String(first.get('id') ?? ''), seq } : null;
  }

  /** Earlier entries than the live document holds (a page of history): kept across documents
   * (a resync), shown before the live entries, each once (by id), until the document goes. */
  addEarlier(entries: readonly TranscriptEntry[]): void {
    if (entries.length === 0) {
      return;
    }
    const byId = new Map(this._earlier.map(source => [source.id, source]));
    for (const entry of entries) {
      byId.set(entry.id, staticSource(entry));
    }
    this._earlier = [...byId.values()].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0));
    this._entries = null;
    this._entriesChanged.emit();
  }

  /** Read `doc` from now on (null: nothing, and no earlier history either). The caller owns the
   * document and destroys it. */
  setDocument(doc: Y.Doc | null): void {
    if (doc === this._doc) {
      return;
    }
    if (!doc) {
      this._earlier = [];
    }
    this._unobserve?.();
    this._unobserve = null;
    this._doc = doc;
    if (doc) {
      this._unobserve = this._observe(doc);
    }
    this._meta = this._queue = this._approvals = this._participants = this._entries = null;
    this._changed.emit();
    this._entriesChanged.emit();
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    this._unobserve?.();
    this._doc = null;
    Signal.clearData(this);
  }

  private _observe(doc: Y.Doc): () => void {
    const stale = new Set<Root>();
    const roots: [Root, Y.Map<unknown> | Y.Array<unknown>][] = [
      ['meta', doc.getMap('meta')],
      ['participants', doc.getMap('participants')],
      ['queue', doc.getArray('queue')],
      ['approvals', doc.getMap('approvals')]
    ];
    const undo: (() => void)[] = [];
    for (const [name, type] of roots) {
      const mark = () => stale.add(name);
      type.observeDeep(mark);
      undo.push(() => type.unobserveDeep(mark));
    }
    // Only insertions and deletions: each entry is observed by whoever shows it.
    const transcript = doc.getArray('transcript');
    const markEntries = () => stale.add('transcript');
    transcript.observe(markEntries);
    undo.push(() => transcript.unobserve(markEntries));
    // One signal per transaction, after every observer saw it.
    const afterTransaction = () => {
      if (stale.size === 0) {
        return;
      }
      const entries = stale.delete('transcript');
      for (const name of stale) {
        this._forget(name);
      }
      const others = stale.size > 0;
      stale.clear();
      if (entries) {
        this._entries = null;
        this._entriesChanged.emit();
      }
      if (others) {
        this._changed.emit();
      }
    };
    doc.on('afterTransaction', afterTransaction);
    undo.push(() => doc.off('afterTransaction', afterTransaction));
    return () => undo.forEach(stop => stop());
  }

  private _forget(root: Root): void {
    switch (root) {
      case 'meta':
        this._meta = null;
        break;
      case 'participants':
        this._participants = null;
        break;
      case 'queue':
        this._queue = null;
        break;
      case 'approvals':
        this._approvals = null;
        break;
      case 'transcript':
        this._entries = null;
        break;
    }
  }

  private _readEntries(): IEntrySource[] {
    const array = this._doc?.getArray<Y.Map<unknown>>('transcript');
    const live = array ? array.toArray() : [];
    const sources = live.map(map => entrySource(map));
    if (this._earlier.length === 0) {
      return sources;
    }
    // Earlier history stops where the live window starts (it may have moved since the page).
    const oldest = live.length ? live[0].get('seq') : undefined;
    const ids = new Set(sources.map(source => source.id));
    const earlier = this._earlier.filter(
      source => !ids.has(source.id) && (typeof oldest !== 'number' || (source.seq ?? 0) < oldest)
    );
    return [...earlier, ...sources];
  }

  private _me: IMe | null = null;
  private _connection: ConnectionStatus = 'connecting';
  private _chats: readonly string[] = [];
  private _channels: Readonly<Record<string, string | null>> = {};
  private _doc: Y.Doc | null = null;
  private _unobserve: (() => void) | null = null;
  private _meta: IMeta | null = null;
  private _queue: IQueueItem[] | null = null;
  private _approvals: IApproval[] | null = null;
  private _participants: IParticipant[] | null = null;
  private readonly _namesFrom: IRoomModel | null;
  private _entries: IEntrySource[] | null = null;
  private _earlier: (IEntrySource & { seq?: number })[] = [];
  private _disposed = false;
  private _changed = new Signal<IRoomModel, void>(this);
  private _entriesChanged = new Signal<IRoomModel, void>(this);
  private _sent = new Signal<IRoomModel, void>(this);
}

function readQueue(doc: Y.Doc | null): IQueueItem[] {
  const items = (doc?.getArray('queue').toJSON() ?? []) as IQueueItem[];
  return items.map(item => ({ ...item, text: bidiShown(item.text), target: item.target ?? null }));
}

function readApprovals(doc: Y.Doc | null): IApproval[] {
  const cards = (doc?.getMap('approvals').toJSON() ?? {}) as Record<string, Omit<IApproval, 'id'>>;
  return Object.entries(cards).map(([id, card]) => ({
    ...card,
    id,
    summary: bidiShown(card.summary),
    details: Object.fromEntries(
      Object.entries(textsOf(card.details)).map(([key, text]) => [key, bidiShown(text)])
    ),
    hidden: hiddenIn(card.details),
    choices: card.choices ?? []
  }));
}

function readParticipants(doc: Y.Doc | null): IParticipant[] {
  const people = (doc?.getMap('participants').toJSON() ?? {}) as Record<
    string,
    Omit<IParticipant, 'username'>
  >;
  return Object.entries(people)
    .map(([username, person]) => ({ ...person, username }))
    .sort((a, b) => a.username.localeCompare(b.username));
}

/** The same source object for the same Y.Map, so views keep their subscriptions. */
const sources = new WeakMap<Y.Map<unknown>, IEntrySource>();

function entrySource(map: Y.Map<unknown>): IEntrySource {
  let source = sources.get(map);
  if (!source) {
    source = {
      id: String(map.get('id') ?? ''),
      read: () => readEntry(map.toJSON()),
      observe: listener => {
        const handler = () => listener();
        map.observeDeep(handler);
        return () => map.unobserveDeep(handler);
      }
    };
    sources.set(map, source);
  }
  return source;
}

/** An entry of earlier history: it no longer changes. */
function staticSource(entry: TranscriptEntry): IEntrySource & { seq?: number } {
  return { id: entry.id, seq: entry.seq, read: () => entry, observe: () => () => undefined };
}

/** The cards the running turn opened and that still wait. */
export function turnCards(model: Pick<IRoomModel, 'meta' | 'approvals'>): IApproval[] {
  const prompt = model.meta.turn_prompt;
  return prompt ? model.approvals.filter(card => card.prompt_id === prompt) : [];
}

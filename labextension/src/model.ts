/**
 * The room as the panel sees it: the server's live Y document (read, never written) plus the
 * caller's own status from `GET room`, with typed signals for the views.
 *
 * Every (re)connection starts from a fresh `Y.Doc`: after a server restart the room document is
 * rebuilt from the transcript with new item ids, and merging it into an old local copy would
 * duplicate everything.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';

import { documentSocket, post, requestAPI } from './api';
import {
  IApproval,
  ICatalog,
  IMe,
  IMeta,
  IParticipant,
  IQueueItem,
  ISettings,
  Role
} from './types';

export type Connection = 'connecting' | 'online' | 'offline' | 'outside';

const ADMITTED: Role[] = ['host', 'member', 'viewer'];
const WAITING_POLL_MS = 2000;
const MAX_BACKOFF_MS = 5000;

export class RoomModel implements IDisposable {
  constructor() {
    void this._start();
  }

  /** Something other than the transcript changed: meta, queue, approvals, people, me. */
  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** A new document arrived (first sync or a reconnection): views re-read the transcript. */
  get documentChanged(): ISignal<this, void> {
    return this._documentChanged;
  }

  get me(): IMe | null {
    return this._me;
  }

  get connection(): Connection {
    return this._connection;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  can(action: string): boolean {
    return this._me?.can.includes(action) ?? false;
  }

  /** The transcript entries of the current document (each a Y.Map with a Y.Text body). */
  get transcript(): Y.Array<Y.Map<any>> | null {
    return this._doc?.getArray<Y.Map<any>>('transcript') ?? null;
  }

  get meta(): IMeta {
    return (this._doc?.getMap('meta').toJSON() as IMeta) ?? {};
  }

  get queue(): IQueueItem[] {
    return (this._doc?.getArray('queue').toJSON() as IQueueItem[]) ?? [];
  }

  get approvals(): IApproval[] {
    const approvals = this._doc?.getMap('approvals').toJSON() ?? {};
    return Object.entries(approvals).map(([id, card]) => ({ id, ...(card as any) }));
  }

  get participants(): IParticipant[] {
    const people = this._doc?.getMap('participants').toJSON() ?? {};
    return Object.entries(people)
      .map(([username, person]) => ({ username, ...(person as any) }))
      .sort((a, b) => a.username.localeCompare(b.username));
  }

  person(username: string): IParticipant | undefined {
    return this.participants.find(p => p.username === username);
  }

  // -- actions (REST) ---------------------------------------------------------------------------

  submit(
    text: string,
    target: { kind: 'skill' | 'agent'; name: string } | null
  ): Promise<{ id: string; position: number }> {
    return post('prompts', { text, target });
  }

  withdraw(id: string): Promise<void> {
    return requestAPI(`prompts/${encodeURIComponent(id)}`, { method: 'DELETE' });
  }

  answerPermission(id: string, approve: boolean, feedback?: string): Promise<void> {
    return post(`approvals/${encodeURIComponent(id)}`, {
      decision: approve ? 'approve' : 'reject',
      ...(feedback ? { feedback } : {})
    });
  }

  answerQuestion(id: string, answer: string): Promise<void> {
    return post(`questions/${encodeURIComponent(id)}`, { answer });
  }

  abort(): Promise<void> {
    return post('abort');
  }

  admit(username: string, decision: 'viewer' | 'member' | 'reject'): Promise<void> {
    return post(`admissions/${encodeURIComponent(username)}`, { decision });
  }

  setRole(username: string, role: 'viewer' | 'member'): Promise<void> {
    return requestAPI(`participants/${encodeURIComponent(username)}`, {
      method: 'PUT',
      body: JSON.stringify({ role })
    });
  }

  remove(username: string): Promise<void> {
    return requestAPI(`participants/${encodeURIComponent(username)}`, {
      method: 'DELETE'
    });
  }

  settings(): Promise<ISettings> {
    return requestAPI('settings');
  }

  patchSettings(changes: Partial<ISettings>): Promise<ISettings> {
    return requestAPI('settings', { method: 'PATCH', body: JSON.stringify(changes) });
  }

  catalog(): Promise<ICatalog> {
    return requestAPI('catalog');
  }

  // -- connection -------------------------------------------------------------------------------

  /** Ask the server who I am; connect when admitted, keep asking while at the door. */
  async refreshMe(): Promise<void> {
    try {
      const room = await requestAPI<{ me: IMe }>('room');
      const before = this._me?.role;
      this._me = room.me;
      if (before !== room.me.role) {
        this._changed.emit();
      }
    } catch (error) {
      this._setConnection('offline');
    }
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    window.clearTimeout(this._timer);
    this._disconnect();
    Signal.clearData(this);
  }

  private async _start(): Promise<void> {
    await this.refreshMe();
    if (this._disposed) {
      return;
    }
    if (this._me && ADMITTED.includes(this._me.role)) {
      this._connect();
    } else {
      this._setConnection(this._me ? 'outside' : 'offline');
      this._retry(WAITING_POLL_MS);
    }
  }

  private _connect(): void {
    this._disconnect();
    const doc = new Y.Doc();
    const { url, params } = documentSocket();
    const provider = new WebsocketProvider(url, 'ws', doc, {
      params,
      disableBc: true,
      // Reconnections are ours: each one needs a fresh document (see the module docstring).
      shouldReconnect: () => false
    });
    provider.awareness.setLocalState(null);
    this._doc = doc;
    this._provider = provider;
    if (this._connection !== 'offline') {
      this._setConnection('connecting'); // while offline, stay offline until a sync succeeds
    }
    provider.on('sync', (synced: boolean) => {
      if (synced && this._provider === provider) {
        this._backoff = 500;
        this._setConnection('online');
        this._documentChanged.emit();
      }
    });
    // Every close, also of an attempt that never opened (y-websocket reports `status` only for
    // connections that had opened): go offline and try again with a fresh document.
    provider.on('connection-close', () => {
      if (this._provider === provider) {
        this._setConnection('offline');
        this._retry(this._backoff);
        this._backoff = Math.min(this._backoff * 2, MAX_BACKOFF_MS);
      }
    });
    const changed = () => this._onDocumentChange();
    doc.getMap('meta').observe(changed);
    doc.getArray('queue').observeDeep(changed);
    doc.getMap('approvals').observeDeep(changed);
    doc.getMap('participants').observeDeep(changed);
  }

  private _onDocumentChange(): void {
    const mine = this._me && this.person(this._me.username);
    if (mine && this._me && mine.role !== this._me.role) {
      void this.refreshMe(); // my role changed: what I may do changes too
      if (!ADMITTED.includes(mine.role)) {
        this._disconnect();
        this._retry(0);
      }
    }
    this._changed.emit();
  }

  private _retry(delay: number): void {
    window.clearTimeout(this._timer);
    this._timer = window.setTimeout(() => void this._start(), delay);
  }

  private _disconnect(): void {
    const provider = this._provider;
    this._provider = null;
    provider?.destroy();
    this._doc?.destroy();
    this._doc = null;
  }

  private _setConnection(connection: Connection): void {
    if (this._connection !== connection) {
      this._connection = connection;
      this._changed.emit();
    }
  }

  private _me: IMe | null = null;
  private _doc: Y.Doc | null = null;
  private _provider: WebsocketProvider | null = null;
  private _connection: Connection = 'connecting';
  private _backoff = 500;
  private _timer = 0;
  private _disposed = false;
  private _changed = new Signal<this, void>(this);
  private _documentChanged = new Signal<this, void>(this);
}

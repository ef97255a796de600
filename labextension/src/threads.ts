/**
 * Side threads (`copilot-room/api/.../threads`): a room's conversation forked after a turn,
 * worked on by its owner and the people they add, in a worktree of its own, then brought back to
 * the room as a diff (a card there) or as a prompt. The room's document lists them
 * (`meta.threads`); a thread's own document and REST commands are served beside the room's, and
 * a thread is shown with the room's own components (`openThread`).
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ServerConnection } from '@jupyterlab/services';
import { URLExt } from '@jupyterlab/coreutils';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';

import {
  apiRequest,
  documentSocket,
  IHistoryPage,
  RoomClient,
  roomApiPath,
  Scope,
  SERVER
} from './api';
import { IDocumentProvider, RoomConnection } from './connection';
import { IRoomModel, RoomModel } from './model';
import { IParticipant, IThread } from './types';

export type { IThread };

/** The thread's last whole reply: what "promote as prompt" brings back. */
export function lastReply(model: IRoomModel): string {
  for (let k = model.entries.length - 1; k >= 0; k--) {
    const entry = model.entries[k].read(); // a source: the entry is what it reads
    if (entry.kind === 'assistant' && typeof entry.body === 'string' && entry.body) {
      return entry.body;
    }
  }
  return '';
}

/** The threads of one room, as the room's REST commands. */
export class ThreadsClient {
  constructor(
    readonly serverSettings: ServerConnection.ISettings,
    readonly room: string
  ) {}

  /** Fork after the turn of `from` (the latest finished one without). */
  open(title: string, from?: string): Promise<IThread> {
    return this._send('POST', '', { title, ...(from ? { from } : {}) });
  }

  addPerson(id: string, username: string): Promise<IThread> {
    return this._send('POST', `${encodeURIComponent(id)}/people`, { username });
  }

  /** A promote card in the room (`diff`), or a prompt of `text` and the thread's last reply. */
  promote(id: string, as: 'diff' | 'prompt', text = ''): Promise<{ id: string; position: number }> {
    return this._send(
      'POST',
      `${encodeURIComponent(id)}/promote`,
      as === 'diff' ? { as } : { as, text }
    );
  }

  /** What promoting as a diff would bring: the diff against the fork point, and its files. */
  changes(id: string): Promise<{ diff: string; files: string[] }> {
    return this._send('GET', `${encodeURIComponent(id)}/diff`);
  }

  close(id: string): Promise<void> {
    return this._send('DELETE', encodeURIComponent(id));
  }

  /** The room's people (a thread adds its members), whichever room the sidebar shows. */
  async roomPeople(): Promise<IParticipant[]> {
    const answer = await apiRequest<{ participants: IParticipant[] }>(
      this.serverSettings,
      URLExt.join(roomApiPath(this.room), 'participants')
    );
    return answer.participants;
  }

  private _send<T>(method: string, path: string, body?: unknown): Promise<T> {
    return apiRequest(this.serverSettings, URLExt.join(roomApiPath(this.room), 'threads', path), {
      method,
      body: body === undefined ? undefined : JSON.stringify(body)
    });
  }
}

/** The room's commands that a thread serves itself (`threads/<id>/<command>`, the server's
 * `IN_THREADS`); the others (cards, the model, settings) are the room's. */
const IN_THREAD = /^(prompts|messages|attachments|abort|checkpoints)(\/|\?|$)/;

/** The room's client, speaking to a thread where the thread has commands of its own: prompts
 * and chat go to the thread, its turn is the one stopped, its checkpoints the ones diffed and
 * reverted; cards are answered as the room's. */
export class ThreadRoomClient extends RoomClient {
  constructor(options: {
    serverSettings: ServerConnection.ISettings;
    room: string;
    thread: string;
  }) {
    super(options);
    this.thread = options.thread;
  }

  readonly thread: string;

  /** A thread's prompt is its text (no skill, chips or attachments). */
  submit(text: string): Promise<{ id: string; position: number }> {
    return this._send('POST', 'prompts', { text });
  }

  /** A thread's document holds its whole, short life. */
  history(): Promise<IHistoryPage> {
    return Promise.resolve({ entries: [], more: false });
  }

  protected _fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return super._fetch(this._inThread(path), init);
  }

  protected _request<T>(path: string, init: RequestInit = {}, scope?: Scope): Promise<T> {
    return super._request(scope === SERVER ? path : this._inThread(path), init, scope);
  }

  private _inThread(path: string): string {
    return IN_THREAD.test(path) ? `threads/${encodeURIComponent(this.thread)}/${path}` : path;
  }
}

/** A thread the page shows: its client, its model and its connection. */
export interface IOpenThread {
  readonly room: string;
  readonly thread: string;
  readonly client: ThreadRoomClient;
  readonly threads: ThreadsClient;
  readonly model: IRoomModel;
  dispose(): void;
}

export function openThread(options: {
  room: string;
  thread: string;
  serverSettings: ServerConnection.ISettings;
  rendermime: IRenderMimeRegistry;
  /** The room's model, whose people name those the thread's lines mention. */
  roomModel?: IRoomModel;
}): IOpenThread {
  const { room, thread, serverSettings } = options;
  const client = new ThreadRoomClient({ serverSettings, room, thread });
  const model = new RoomModel({ namesFrom: options.roomModel });
  const connection = new RoomConnection({
    client,
    model,
    provider: (doc: Y.Doc): IDocumentProvider => {
      const { url, params } = documentSocket(serverSettings, room);
      const base = URLExt.join(url, encodeURIComponent(room), 'threads');
      const provider = new WebsocketProvider(base, encodeURIComponent(thread), doc, {
        params,
        disableBc: true,
        shouldReconnect: () => false
      });
      provider.awareness.setLocalState(null);
      return provider;
    }
  });
  connection.start();
  return {
    room,
    thread,
    client,
    threads: new ThreadsClient(serverSettings, room),
    model,
    dispose: () => {
      connection.dispose();
      model.dispose();
    }
  };
}

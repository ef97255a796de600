/**
 * The server's rooms, as the page sees them: the one room the page is in now (`current`, an
 * `IRoom`: its own client, read model, connection and history) and the list `GET rooms` gives,
 * with what waits on the reader in each. Switching closes the old room's connection and builds
 * the new one from scratch, so nothing of the old room's document can show in the new view; the
 * reader's prompt drafts are kept per room. The panel, the status bar, the notebook views and the
 * commands follow `currentChanged`.
 */
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';
import { Token } from '@lumino/coreutils';

import { IRoomDirectory, IRoomEntry, IRoomList, MAIN_ROOM } from './api';
import { IPromptDraft, IRoom } from './room';
import { agentStateLabel, isAdmitted, isAtTheDoor, isHost } from './policy';

/** How often the list is asked for while the panel is shown. */
export const ROOMS_POLL_MS = 5000;

/** The URL parameter of a link to a room: `/lab?copilot-room=<name>`. */
export const ROOM_PARAM = 'copilot-room';

/** Whether the reader may create rooms: the server says so (`can_create`); a server that does
 * not say lets the hosts of `main` try (it answers 403 to anyone else). */
export function mayCreateRooms(list: IRoomList): boolean {
  if (typeof list.can_create === 'boolean') {
    return list.can_create;
  }
  return isHost(list.rooms.find(room => room.name === MAIN_ROOM));
}

/** What waits on the reader in rooms other than `current`: how many, and where. */
export function waitingElsewhere(
  rooms: readonly IRoomEntry[],
  current: string
): { count: number; rooms: string[] } {
  const elsewhere = rooms.filter(room => room.name !== current && room.waiting_on_you > 0);
  return {
    count: elsewhere.reduce((sum, room) => sum + room.waiting_on_you, 0),
    rooms: elsewhere.map(room => room.name)
  };
}

export function peopleLabel(count: number): string {
  return count === 0 ? 'nobody in' : count === 1 ? '1 person' : `${count} people`;
}

export function waitingLabel(count: number): string {
  return `${count} waiting on you`;
}

/** One room in the switcher's list: its folder, the agent's state in words, who is in, the
 * reader's role while it is not plain membership, and what waits on them there. `people`: who
 * is in, when the page knows better than the list (the room it is in, live). */
export function roomDetails(room: IRoomEntry, people = room.people.length): string {
  const parts = [
    room.repository ? `${room.repository}/` : 'server root',
    agentStateLabel(room.state),
    peopleLabel(people)
  ];
  if (isAtTheDoor(room)) {
    parts.push(room.at_the_door ? 'you asked to join' : 'open it to ask to join');
  } else if (!isAdmitted(room)) {
    parts.push('not in');
  }
  if (room.waiting_on_you > 0) {
    parts.push(waitingLabel(room.waiting_on_you));
  }
  if (room.start_error) {
    parts.push(`could not start: ${room.start_error.message}`);
  }
  return parts.join(' · ');
}

/** A room name from a folder's name (`My Analysis` -> `my-analysis`); the server checks it. */
export function suggestRoomName(folder: string): string {
  return folder
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 40);
}

/** The room a link names (`?copilot-room=<name>`), or null. */
export function roomFromLink(href: string): string | null {
  const name = new URL(href).searchParams.get(ROOM_PARAM);
  return name ? name : null;
}

/** The same address without the room parameter: once read, a reload or a bookmark of the page
 * should not switch rooms again behind the reader's back. */
export function withoutRoomParam(href: string): string {
  const url = new URL(href);
  url.searchParams.delete(ROOM_PARAM);
  return url.toString();
}

/** A link that opens JupyterLab on `room` (`<base>lab?copilot-room=<name>`). */
export function roomLink(labUrl: string, room: string): string {
  const url = new URL(labUrl);
  url.searchParams.set(ROOM_PARAM, room);
  return url.toString();
}

/** What the page needs of its rooms (a service: the panel, status bar, notebook views). */
export interface IRooms {
  /** The room the page shows now. */
  readonly current: IRoom;
  /** The page moved to another room: views show `current` afresh. */
  readonly currentChanged: ISignal<IRooms, IRoom>;
  /** The rooms as last listed (`main` first); empty until the server answered. */
  readonly list: readonly IRoomEntry[];
  readonly canCreate: boolean;
  /** The list changed. */
  readonly listChanged: ISignal<IRooms, void>;
  /** Show `name` from now on (no-op when it is already shown). */
  switchTo(name: string): void;
  /** Ask the server for the list now; resolves when it answered (or could not). */
  refresh(): Promise<void>;
  /** Create a room, then switch to it. Throws the server's refusal (`RoomAPIError`). */
  create(name: string, repository: string): Promise<IRoomEntry>;
  /** Keep the list fresh while a view that shows it is visible. */
  setPolling(on: boolean): void;
}

export const IRooms = new Token<IRooms>(
  'jupyter-copilot-room:IRooms',
  "The server's Copilot rooms and the one this page is in (its connection, model and history)."
);

/** A room the page is in; disposing it closes its connection. */
export type IOpenRoom = IRoom & IDisposable;

export class Rooms implements IRooms, IDisposable {
  constructor(options: {
    directory: IRoomDirectory;
    /** Open a room (its own client, model, connection, history), its prompt draft given. */
    open: (name: string, draft: IPromptDraft) => IOpenRoom;
    initial?: string;
    pollMs?: number;
  }) {
    this._directory = options.directory;
    this._open = options.open;
    this._pollMs = options.pollMs ?? ROOMS_POLL_MS;
    this._current = this._openRoom(options.initial ?? MAIN_ROOM);
    void this.refresh(); // whether the reader may create rooms, before the panel is first shown
  }

  get current(): IRoom {
    return this._current;
  }

  get currentChanged(): ISignal<IRooms, IRoom> {
    return this._currentChanged;
  }

  get list(): readonly IRoomEntry[] {
    return this._list.rooms;
  }

  get canCreate(): boolean {
    return mayCreateRooms(this._list);
  }

  get listChanged(): ISignal<IRooms, void> {
    return this._listChanged;
  }

  get isDisposed(): boolean {
    return this._disposed;
  }

  switchTo(name: string): void {
    if (this._disposed || name === this._current.name) {
      return;
    }
    const previous = this._current;
    this._current = this._openRoom(name);
    previous.dispose();
    this._currentChanged.emit(this._current);
    void this.refresh();
  }

  async refresh(): Promise<void> {
    let list: IRoomList;
    try {
      list = await this._directory.list();
    } catch {
      return; // the server cannot be reached, or has no rooms yet: keep what was listed
    }
    if (!this._disposed && JSON.stringify(list) !== JSON.stringify(this._list)) {
      this._list = list;
      this._listChanged.emit();
    }
  }

  async create(name: string, repository: string): Promise<IRoomEntry> {
    const room = await this._directory.create(name, repository);
    await this.refresh();
    this.switchTo(room.name);
    return room;
  }

  setPolling(on: boolean): void {
    clearInterval(this._poll);
    this._poll = undefined;
    if (on && !this._disposed) {
      void this.refresh();
      this._poll = setInterval(() => void this.refresh(), this._pollMs);
    }
  }

  dispose(): void {
    if (this._disposed) {
      return;
    }
    this._disposed = true;
    clearInterval(this._poll);
    this._current.dispose();
    Signal.clearData(this);
  }

  private _openRoom(name: string): IOpenRoom {
    let draft = this._drafts.get(name);
    if (!draft) {
      draft = { text: '' };
      this._drafts.set(name, draft);
    }
    return this._open(name, draft);
  }

  private _directory: IRoomDirectory;
  private _open: (name: string, draft: IPromptDraft) => IOpenRoom;
  private _pollMs: number;
  private _current: IOpenRoom;
  private _list: IRoomList = { rooms: [] };
  private _drafts = new Map<string, IPromptDraft>();
  private _poll: ReturnType<typeof setInterval> | undefined = undefined;
  private _disposed = false;
  private _currentChanged = new Signal<IRooms, IRoom>(this);
  private _listChanged = new Signal<IRooms, void>(this);
}

/**
 * The server's list of rooms (`copilot-room/api/rooms`): the ones the reader may see, and a new
 * one for those who may create it. A server-level call, not any one room's; ./rooms.ts keeps the
 * list and the page's current room.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { apiRequest, SERVER_API } from './requests';

/** A room as `GET copilot-room/api/rooms` lists it. */
export interface IRoomEntry {
  name: string;
  /** The room's folder, relative to the server's root ('' is the root itself). */
  repository: string;
  /** The agent's state (`idle`, `running`, `sleeping`, `new` before its first start, ...). */
  state: string;
  /** Who is connected now (none listed where the reader is not admitted). */
  people: { username: string; name: string; role: string }[];
  /** The reader's role there (`host`, `member`, `viewer`, `pending`, ...). */
  role: string;
  /** The reader knocks at its door now (a `pending` role alone is what its door would say). */
  at_the_door?: boolean;
  /** Cards that wait on the reader there (`answerers`: people at the door, for its hosts). */
  waiting_on_you: number;
  created_by: string;
  /** Why the room could not start (its state is then `unavailable`); its own routes refuse
   * with the same error, the other rooms are not touched. */
  start_error?: { error: string; message: string };
}

export interface IRoomList {
  rooms: IRoomEntry[];
  /** The reader may create rooms (when the server says; see rooms.ts `mayCreateRooms`). */
  can_create?: boolean;
}

/** The server's rooms: the ones the reader may see, and new ones (by those who may). */
export interface IRoomDirectory {
  list(): Promise<IRoomList>;
  /** 201 with the new room; 403 not_allowed, 409 room_exists, 400 a bad name or folder. */
  create(name: string, repository: string): Promise<IRoomEntry>;
}

export class RoomDirectoryClient implements IRoomDirectory {
  constructor(readonly serverSettings: ServerConnection.ISettings) {}

  list(): Promise<IRoomList> {
    return apiRequest(this.serverSettings, URLExt.join(SERVER_API, 'rooms'));
  }

  create(name: string, repository: string): Promise<IRoomEntry> {
    return apiRequest(this.serverSettings, URLExt.join(SERVER_API, 'rooms'), {
      method: 'POST',
      body: JSON.stringify({ name, repository })
    });
  }
}

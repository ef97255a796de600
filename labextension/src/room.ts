/**
 * One room the page is in, as a bundle: its REST client, read model, connection and earlier
 * history, all bound to that room. The sidebar panel and every notebook view of the room
 * (widget/) read the same model, so a page holds one websocket and one `GET room` poll however
 * many views it shows. Which room that is, and switching, is `IRooms`' (rooms.ts).
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ServerConnection } from '@jupyterlab/services';

import { IRoomClient, RoomClient } from './api';
import { RoomConnection } from './connection';
import { EarlierHistory, IEarlierHistory } from './history';
import { IRoomModel, RoomModel } from './model';
import { websocketProvider } from './socket';

/** What the reader has typed into a room's prompt box and not sent: kept per room. */
export interface IPromptDraft {
  text: string;
}

export interface IRoom {
  /** The room's name (`main` for the server root's). */
  readonly name: string;
  readonly client: IRoomClient;
  readonly model: IRoomModel;
  readonly history: IEarlierHistory;
  /** Renders agent output only through the agent-output sanitizer (sanitize.ts). */
  readonly rendermime: IRenderMimeRegistry;
  /** The panel's prompt draft in this room. */
  readonly draft: IPromptDraft;
}

/** Connect to the room `name`; `dispose()` closes the connection and drops its document. */
export function openRoom(options: {
  name: string;
  serverSettings: ServerConnection.ISettings;
  rendermime: IRenderMimeRegistry;
  draft: IPromptDraft;
}): IRoom & { dispose(): void; readonly isDisposed: boolean } {
  const { name, serverSettings, rendermime, draft } = options;
  const client = new RoomClient({ serverSettings, room: name });
  const model = new RoomModel();
  const connection = new RoomConnection({
    client,
    model,
    provider: websocketProvider(serverSettings, name)
  });
  connection.start();
  const history = new EarlierHistory({ client, model });
  let disposed = false;
  return {
    name,
    client,
    model,
    history,
    rendermime,
    draft,
    get isDisposed() {
      return disposed;
    },
    dispose: () => {
      if (!disposed) {
        disposed = true;
        connection.dispose();
        history.dispose();
        model.dispose();
      }
    }
  };
}

/**
 * The page's one connection to the room, as a service: the sidebar panel and every notebook view
 * of the room (widget/) read the same model, so a page holds one websocket and one `GET room`
 * poll however many views it shows.
 */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { Token } from '@lumino/coreutils';

import { IRoomClient } from './api';
import { IEarlierHistory } from './history';
import { IRoomModel } from './model';

export interface IRoom {
  readonly client: IRoomClient;
  readonly model: IRoomModel;
  readonly history: IEarlierHistory;
  /** Renders agent output only through the agent-output sanitizer (sanitize.ts). */
  readonly rendermime: IRenderMimeRegistry;
}

export const IRoom = new Token<IRoom>(
  'jupyter-copilot-room:IRoom',
  "The page's one live connection to the Copilot room: its read model, REST client and history."
);

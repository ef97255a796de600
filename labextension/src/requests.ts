/**
 * Where a room lives on the server, and one request there: a room's REST commands under
 * `copilot-room/api/rooms/<name>/`, the server's own under `copilot-room/api/`, its live
 * document at `copilot-room/ws/<name>`. XSRF and the token are handled by `ServerConnection`,
 * as for any JupyterLab request; a refusal becomes a `RoomAPIError` (./apierror.ts). Shared by
 * the room's client (./api.ts), a side thread's (./threads.ts) and the list of rooms
 * (./roomdirectory.ts).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { errorFromResponse, RoomAPIError, UNREACHABLE } from './apierror';

/** The room every page starts in: the server root's, also served at the routes without a name. */
export const MAIN_ROOM = 'main';

/** The server's own commands (the rooms, the host claim, main's Copilot sign-in) are not any
 * one room's: `copilot-room/api/<command>`. */
export const SERVER_API = 'copilot-room/api';
export const SERVER = 'server';
export const ROOM = 'room';
export type Scope = typeof SERVER | typeof ROOM;

/** Where a room's REST commands live: `copilot-room/api/rooms/<name>/`. */
export function roomApiPath(room: string): string {
  return URLExt.join('copilot-room', 'api', 'rooms', encodeURIComponent(room));
}

export async function apiFetch(
  settings: ServerConnection.ISettings,
  path: string,
  init: RequestInit
): Promise<Response> {
  try {
    return await ServerConnection.makeRequest(URLExt.join(settings.baseUrl, path), init, settings);
  } catch {
    throw new RoomAPIError(0, 'network', UNREACHABLE);
  }
}

export async function apiRequest<T>(
  settings: ServerConnection.ISettings,
  path: string,
  init: RequestInit = {}
): Promise<T> {
  const response = await apiFetch(settings, path, init);
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw new RoomAPIError(0, 'network', UNREACHABLE);
  }
  if (!response.ok) {
    throw errorFromResponse(response.status, response.statusText, text);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The websocket URL of a room's live document, `copilot-room/ws/<name>` (y-websocket adds
 * the last segment; token added when the server uses one). */
export function documentSocket(
  settings: ServerConnection.ISettings,
  room: string
): {
  url: string;
  roomSegment: string;
  params: Record<string, string>;
} {
  const params: Record<string, string> = {};
  if (settings.token) {
    params.token = settings.token;
  }
  return {
    url: URLExt.join(settings.wsUrl, 'copilot-room', 'ws'),
    roomSegment: encodeURIComponent(room),
    params
  };
}

/**
 * REST calls to the room (`<base_url>copilot-room/api/...`). Every action goes through here;
 * the panel never writes the room document. XSRF and the token are handled by
 * `ServerConnection`, as for any JupyterLab request.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** An error the room answered with: a stable code and a message meant for people. */
export class RoomAPIError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string
  ) {
    super(message);
  }
}

export async function requestAPI<T>(
  path: string,
  init: RequestInit = {}
): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, 'copilot-room', 'api', path);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new RoomAPIError(0, 'network', 'The server cannot be reached.');
  }
  const text = await response.text();
  let data: any = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!response.ok) {
    throw new RoomAPIError(
      response.status,
      data?.error ?? 'error',
      data?.message ?? response.statusText
    );
  }
  return data as T;
}

export function post<T>(path: string, body?: unknown): Promise<T> {
  return requestAPI<T>(path, {
    method: 'POST',
    body: body === undefined ? undefined : JSON.stringify(body)
  });
}

/** The websocket URL of the live room document (token added when the server uses one). */
export function documentSocket(): { url: string; params: Record<string, string> } {
  const settings = ServerConnection.makeSettings();
  const params: Record<string, string> = {};
  if (settings.token) {
    params.token = settings.token;
  }
  return { url: URLExt.join(settings.wsUrl, 'copilot-room'), params };
}

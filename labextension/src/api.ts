/**
 * The REST client of the room (`<base_url>copilot-room/api/...`). Every action goes through
 * here; the panel never writes the room document. XSRF and the token are handled by
 * `ServerConnection`, as for any JupyterLab request. Refusals become `RoomAPIError`s whose
 * message is meant for the person who pressed the button.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { IAttachmentRef, IUpload } from './attachments';
import { IChip } from './chips';
import type { AdmissionDecision as Decision, ExportFormat } from './generated/declarations';
import { IWholeCard } from './hidden';
import { ICatalog, IChannelLink, IRoomStatus, ISettings, ITarget } from './types';

/** An error the room answered with (or could not answer): a stable code and a message. */
export class RoomAPIError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string
  ) {
    super(message);
    this.name = 'RoomAPIError';
  }
}

export const UNREACHABLE = 'The server cannot be reached. Check your connection, then try again.';

/** The room's answer to a failed request as an error: `{"error", "message"}` when the room
 * wrote it, the status line otherwise (a proxy's page, jupyter_server's own 403). */
export function errorFromResponse(status: number, statusText: string, text: string): RoomAPIError {
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  const fields = (body ?? {}) as { error?: unknown; message?: unknown; reason?: unknown };
  const code =
    typeof fields.error === 'string'
      ? fields.error
      : typeof fields.reason === 'string'
        ? fields.reason
        : 'http_' + status;
  const message =
    typeof fields.message === 'string' && fields.message
      ? fields.message
      : `The server refused this (${status}${statusText ? ' ' + statusText : ''}).`;
  return new RoomAPIError(status, code, message);
}

/** What to tell the person whose action failed. */
export function refusalMessage(error: unknown): string {
  if (error instanceof RoomAPIError || error instanceof Error) {
    return error.message;
  }
  return String(error);
}

/** What a host decides at the door, and an export's format: generated (`panel_declarations.py`). */
export type { AdmissionDecision as Decision, ExportFormat } from './generated/declarations';

export interface IExported {
  /** The file name the room chose (`copilot-room-<time>.<format>`). */
  name: string;
  text: string;
}

/** The room's REST commands, as the panel uses them (a fake in tests). */
export interface IRoomClient {
  room(): Promise<IRoomStatus>;
  /** `chips`: what the prompt points at (./chips.ts); checked by the room (400 invalid_chip).
   * `attachments`: uploaded images by id, repository files by path (./attachments.ts). */
  submit(
    text: string,
    target: ITarget | null,
    chips?: readonly IChip[],
    attachments?: readonly IAttachmentRef[]
  ): Promise<{ id: string; position: number }>;
  /** Upload an image for a prompt (its type as the file has it); the answer's id names it. */
  upload(image: Blob): Promise<IUpload>;
  /** A stored image (everyone admitted). */
  attachment(id: string): Promise<Blob>;
  withdraw(promptId: string): Promise<void>;
  /** Say something to the room (chat): recorded and shown, never sent to the agent. */
  say(text: string): Promise<{ id: string }>;
  /** The whole transcript as a file: a notebook, Markdown or JSONL, and the name the room
   * gives it; its times in `timeZone` (an IANA name; UTC without one). */
  exportTranscript(format: ExportFormat, timeZone?: string): Promise<IExported>;
  answerPermission(id: string, approve: boolean, feedback?: string): Promise<void>;
  /** An open card's texts, none cut (everyone who sees the card; 404 once it settled). */
  approvalInFull(id: string): Promise<IWholeCard>;
  answerQuestion(id: string, answer: string): Promise<void>;
  abort(): Promise<void>;
  /** Say something into the running turn of `promptId` (its author, hosts). */
  steer(promptId: string, text: string): Promise<{ id: string }>;
  /** The model that answers the next turns, and those a host may switch to. */
  model(): Promise<IModelChoice>;
  /** Switch the model of the next turns (hosts). */
  chooseModel(model: string): Promise<IModelChoice>;
  /** Retry starting an agent that could not start (hosts). */
  startAgent(): Promise<void>;
  /** Become the host of a room that has none, with the secret the server's start named. */
  claimHost(secret: string): Promise<IRoomStatus>;
  admit(username: string, decision: Decision): Promise<void>;
  /** My panel closed while I waited at the door: the hosts' card of my knock goes at once. */
  leaveDoor(): Promise<void>;
  setRole(username: string, role: 'viewer' | 'member'): Promise<void>;
  remove(username: string): Promise<void>;
  /** Lift one person's daily cap for the rest of today (hosts). */
  liftBudget(username: string): Promise<void>;
  settings(): Promise<ISettings>;
  patchSettings(changes: Partial<ISettings>): Promise<ISettings>;
  catalog(): Promise<ICatalog>;
  /** A one-time code that links the caller's chat account (Slack) to their username: they send
   * `link <code>` to the bot (404 `no_bridge` when the server runs no chat bridge). */
  linkCode(): Promise<ILinkCode>;
  /** My linked chat accounts, and the chat users asking (with my code) to act as me. */
  chatLinks(): Promise<IChatLinks>;
  /** Let the chat user who sent my code act as me, or not: only I answer my asks. */
  answerLinkAsk(askId: string, decision: 'allow' | 'deny'): Promise<void>;
  /** One of my linked chat accounts no longer acts as me. */
  unlinkChat(service: string, user: string): Promise<void>;
  /** The room's channel in a bridged chat service, from now on (hosts; 409 `channel_taken`
   * when it is another room's). */
  linkChannel(service: string, channel: string): Promise<IChannelLink>;
  unlinkChannel(service: string): Promise<void>;
  /** Up to `limit` transcript entries older than `before` (a record seq), oldest first, as the
   * document shows them; `more`: there are older ones still. */
  history(before: number, limit: number): Promise<IHistoryPage>;
}

/** `GET signin`: whether sign-in is offered (demo mode) and the flow in hand. */
export interface ISignIn {
  /** `consent`: the runtime asks before keeping the login in plain text (no keychain). */
  state: 'idle' | 'waiting' | 'consent' | 'failed';
  offered: boolean;
  by?: string;
  /** Where the host signs in (GitHub's page). */
  url?: string;
  /** Where the browser lands afterwards: the runtime's listener on the server. */
  callback?: string;
  error?: string;
}

/** `POST link-code`: the code, and for how many seconds it works. */
export interface ILinkCode {
  code: string;
  expires_in: number;
}

/** A chat account as its service names it (`name`: "@mallory"; its id when unknown). */
export interface IChatAccount {
  service: string;
  user: string;
  name: string;
}

/** `GET chat-links`: my linked accounts, and the asks to act as me that wait on my answer. */
export interface IChatLinks {
  links: IChatAccount[];
  asks: (IChatAccount & { id: string })[];
}

export interface IModelChoice {
  model: string | null;
  models: string[];
}

export interface IHistoryPage {
  entries: Record<string, unknown>[];
  more: boolean;
}

/** The room every page starts in: the server root's, also served at the routes without a name. */
export const MAIN_ROOM = 'main';

/** The server's own commands (the rooms, the host claim, main's Copilot sign-in) are not any
 * one room's: `copilot-room/api/<command>`. */
const SERVER_API = 'copilot-room/api';
export const SERVER = 'server';
const ROOM = 'room';
export type Scope = typeof SERVER | typeof ROOM;

/** Where a room's REST commands live: `copilot-room/api/rooms/<name>/`. */
export function roomApiPath(room: string): string {
  return URLExt.join('copilot-room', 'api', 'rooms', encodeURIComponent(room));
}

export class RoomClient implements IRoomClient {
  /** `room`: the room this client speaks to (`main` unless said). */
  constructor(options: { serverSettings?: ServerConnection.ISettings; room?: string } = {}) {
    this.serverSettings = options.serverSettings ?? ServerConnection.makeSettings();
    this.roomName = options.room ?? MAIN_ROOM;
  }

  readonly serverSettings: ServerConnection.ISettings;
  readonly roomName: string;

  room(): Promise<IRoomStatus> {
    return this._request('room');
  }

  submit(
    text: string,
    target: ITarget | null,
    chips?: readonly IChip[],
    attachments?: readonly IAttachmentRef[]
  ): Promise<{ id: string; position: number }> {
    return this._send('POST', 'prompts', {
      text,
      target,
      ...(chips?.length ? { chips } : {}),
      ...(attachments?.length ? { attachments } : {})
    });
  }

  upload(image: Blob): Promise<IUpload> {
    return this._request('attachments', {
      method: 'POST',
      body: image,
      headers: { 'Content-Type': image.type }
    });
  }

  async attachment(id: string): Promise<Blob> {
    const response = await this._fetch(`attachments/${encodeURIComponent(id)}`);
    if (!response.ok) {
      throw errorFromResponse(response.status, response.statusText, await response.text());
    }
    return response.blob();
  }

  say(text: string): Promise<{ id: string }> {
    return this._send('POST', 'messages', { text });
  }

  async exportTranscript(format: ExportFormat, timeZone?: string): Promise<IExported> {
    const zone = timeZone ? `&tz=${encodeURIComponent(timeZone)}` : '';
    const response = await this._fetch(`transcript?format=${format}${zone}`);
    const text = await response.text();
    if (!response.ok) {
      throw errorFromResponse(response.status, response.statusText, text);
    }
    const disposition = response.headers.get('Content-Disposition') ?? '';
    const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? `copilot-room.${format}`;
    return { name, text };
  }

  withdraw(promptId: string): Promise<void> {
    return this._send('DELETE', `prompts/${encodeURIComponent(promptId)}`);
  }

  answerPermission(id: string, approve: boolean, feedback?: string): Promise<void> {
    return this._send('POST', `approvals/${encodeURIComponent(id)}`, {
      decision: approve ? 'approve' : 'reject',
      ...(feedback ? { feedback } : {})
    });
  }

  approvalInFull(id: string): Promise<IWholeCard> {
    return this._request(`approvals/${encodeURIComponent(id)}/details`);
  }

  answerQuestion(id: string, answer: string): Promise<void> {
    return this._send('POST', `questions/${encodeURIComponent(id)}`, { answer });
  }

  abort(): Promise<void> {
    return this._send('POST', 'abort');
  }

  steer(promptId: string, text: string): Promise<{ id: string }> {
    return this._send('POST', `prompts/${encodeURIComponent(promptId)}/steer`, { text });
  }

  model(): Promise<IModelChoice> {
    return this._request('model');
  }

  chooseModel(model: string): Promise<IModelChoice> {
    return this._send('PUT', 'model', { model });
  }

  claimHost(secret: string): Promise<IRoomStatus> {
    return this._send('POST', 'claim', { secret }, SERVER);
  }

  startAgent(): Promise<void> {
    return this._send('POST', 'agent/start');
  }

  admit(username: string, decision: Decision): Promise<void> {
    return this._send('POST', `admissions/${encodeURIComponent(username)}`, { decision });
  }

  setRole(username: string, role: 'viewer' | 'member'): Promise<void> {
    return this._send('PUT', `participants/${encodeURIComponent(username)}`, { role });
  }

  remove(username: string): Promise<void> {
    return this._send('DELETE', `participants/${encodeURIComponent(username)}`);
  }

  /** Sent as the tab closes, so it is `keepalive`: the browser finishes it after the page. */
  leaveDoor(): Promise<void> {
    return this._request('door', { method: 'DELETE', keepalive: true });
  }

  liftBudget(username: string): Promise<void> {
    return this._send('POST', `budgets/${encodeURIComponent(username)}/lift`);
  }

  settings(): Promise<ISettings> {
    return this._request('settings');
  }

  patchSettings(changes: Partial<ISettings>): Promise<ISettings> {
    return this._send('PATCH', 'settings', changes);
  }

  catalog(): Promise<ICatalog> {
    return this._request('catalog');
  }

  history(before: number, limit: number): Promise<IHistoryPage> {
    return this._request(`history?before=${before}&limit=${limit}`);
  }

  /** The server's, not the room's: a code links a person, whichever room they are in. */
  linkCode(): Promise<ILinkCode> {
    return this._send('POST', 'link-code', undefined, SERVER);
  }

  chatLinks(): Promise<IChatLinks> {
    return this._request('chat-links', {}, SERVER);
  }

  answerLinkAsk(askId: string, decision: 'allow' | 'deny'): Promise<void> {
    return this._send('POST', `chat-links/asks/${encodeURIComponent(askId)}`, { decision }, SERVER);
  }

  unlinkChat(service: string, user: string): Promise<void> {
    const path = `chat-links/${encodeURIComponent(service)}/${encodeURIComponent(user)}`;
    return this._send('DELETE', path, undefined, SERVER);
  }

  linkChannel(service: string, channel: string): Promise<IChannelLink> {
    return this._send('PUT', `channels/${encodeURIComponent(service)}`, { channel });
  }

  unlinkChannel(service: string): Promise<void> {
    return this._send('DELETE', `channels/${encodeURIComponent(service)}`);
  }

  /** A turn's checkpoint as a unified diff (members and hosts). */
  checkpointDiff(commit: string): Promise<{ diff: string }> {
    return this._request(`checkpoints/${encodeURIComponent(commit)}/diff`);
  }

  /** Put a turn's files back as before it; a 409 `revert_conflict` names the files. */
  /** `force` (hosts): revert a notebook's cells even where people edited them since. */
  revertCheckpoint(commit: string, force = false): Promise<{ commit: string; files: string[] }> {
    const path = `checkpoints/${encodeURIComponent(commit)}/revert`;
    return force ? this._send('POST', path, { force }) : this._send('POST', path);
  }

  /** The Copilot sign-in in hand (hosts; its address is never in the shared document). */
  signIn(): Promise<ISignIn> {
    return this._request('signin', {}, SERVER);
  }

  /** Begin the runtime's own GitHub login flow (hosts, demo mode; 409 otherwise). */
  beginSignIn(): Promise<ISignIn> {
    return this._send('POST', 'signin', undefined, SERVER);
  }

  /** Hand the room the address the browser landed on after GitHub (a hub's browser cannot
   * reach the runtime on the server). */
  returnSignIn(url: string): Promise<ISignIn> {
    return this._send('POST', 'signin/return', { url }, SERVER);
  }

  /** Let the runtime keep the login in plain text on the server (it has no keychain). */
  allowSignIn(): Promise<ISignIn> {
    return this._send('POST', 'signin/allow', undefined, SERVER);
  }

  cancelSignIn(): Promise<ISignIn> {
    return this._send('POST', 'signin/cancel', undefined, SERVER);
  }

  signOut(): Promise<void> {
    return this._send('POST', 'signout', undefined, SERVER);
  }

  protected _send<T>(method: string, path: string, body?: unknown, scope?: Scope): Promise<T> {
    return this._request(
      path,
      { method, body: body === undefined ? undefined : JSON.stringify(body) },
      scope
    );
  }

  protected _fetch(path: string, init: RequestInit = {}): Promise<Response> {
    return apiFetch(this.serverSettings, URLExt.join(roomApiPath(this.roomName), path), init);
  }

  protected _request<T>(path: string, init: RequestInit = {}, scope: Scope = ROOM): Promise<T> {
    const base = scope === SERVER ? SERVER_API : roomApiPath(this.roomName);
    return apiRequest(this.serverSettings, URLExt.join(base, path), init);
  }
}

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

async function apiFetch(
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

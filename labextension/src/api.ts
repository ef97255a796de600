/**
 * The REST client of the room (`<base_url>copilot-room/api/...`). Every action goes through
 * here; the panel never writes the room document. Refusals become `RoomAPIError`s whose
 * message is meant for the person who pressed the button. The panel imports the client's whole
 * surface from here: its errors (./apierror.ts), where requests go (./requests.ts), its answers'
 * shapes (./responses.ts) and the server's list of rooms (./roomdirectory.ts) are re-exported.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { IAttachmentRef, IUpload } from './attachments';
import { errorFromResponse } from './apierror';
import { IChip } from './chips';
import type { AdmissionDecision as Decision, ExportFormat } from './generated/declarations';
import { IWholeCard } from './hidden';
import {
  apiFetch,
  apiRequest,
  MAIN_ROOM,
  ROOM,
  roomApiPath,
  Scope,
  SERVER,
  SERVER_API
} from './requests';
import { IChatLinks, IExported, IHistoryPage, ILinkCode, IModelChoice, ISignIn } from './responses';
import { ICatalog, IChannelLink, IRoomStatus, ISettings, ITarget } from './types';

export { errorFromResponse, refusalMessage, RoomAPIError, UNREACHABLE } from './apierror';
export { apiRequest, documentSocket, MAIN_ROOM, roomApiPath, SERVER } from './requests';
export type { Scope } from './requests';
export type {
  IChatAccount,
  IChatLinks,
  IExported,
  IHistoryPage,
  ILinkCode,
  IModelChoice,
  ISignIn
} from './responses';
export { RoomDirectoryClient } from './roomdirectory';
export type { IRoomDirectory, IRoomEntry, IRoomList } from './roomdirectory';

/** What a host decides at the door, and an export's format: generated (`panel_declarations.py`). */
export type { AdmissionDecision as Decision, ExportFormat } from './generated/declarations';

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
  /** A checkpointed turn's diff, and its revert (`force`: "revert anyway"). */
  checkpointDiff(commit: string): Promise<{ diff: string }>;
  revertCheckpoint(commit: string, force?: boolean): Promise<{ commit: string; files: string[] }>;
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

/**
 * The shapes of the REST answers only the client reads (what the room document holds is in
 * ./types.ts): an export, the model choice, a page of history, the server's sign-in and chat
 * links.
 */
export interface IExported {
  /** The file name the room chose (`copilot-room-<time>.<format>`). */
  name: string;
  text: string;
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

/**
 * What a failed request to the room becomes: a `RoomAPIError` with the room's stable code and a
 * message meant for the person who pressed the button. Apart from the client, so views that only
 * show refusals do not depend on how requests are made.
 */
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

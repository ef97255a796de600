/**
 * The reader's own display name, where the server lets people choose it: jupyter_server's
 * identity (`GET/PATCH api/me`) lets the anonymous users of a plain `jupyter lab` update theirs
 * (`permissions.updatable_fields`); a hub's or another provider's users are named by it. The
 * room learns the new name at the reader's next request (every request checks its caller in).
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** The longest name the panel offers to set (the server accepts what jupyter_server does). */
export const MAX_NAME = 60;

/** Whether the server lets the reader change their display name. */
export async function mayRename(
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<boolean> {
  try {
    const reply = await ServerConnection.makeRequest(
      URLExt.join(settings.baseUrl, 'api/me'),
      {},
      settings
    );
    const me = reply.ok ? await reply.json() : null;
    const fields: unknown = me?.permissions?.updatable_fields;
    return Array.isArray(fields) && fields.includes('display_name');
  } catch {
    return false;
  }
}

/** Set the reader's display name (and initials from it); throws with the server's words. */
export async function rename(
  name: string,
  settings: ServerConnection.ISettings = ServerConnection.makeSettings()
): Promise<void> {
  const display = cleanName(name);
  const reply = await ServerConnection.makeRequest(
    URLExt.join(settings.baseUrl, 'api/me'),
    {
      method: 'PATCH',
      body: JSON.stringify({ display_name: display, name: display, initials: initialsOf(display) })
    },
    settings
  );
  if (!reply.ok) {
    throw new Error(`The server did not take the name (HTTP ${reply.status}).`);
  }
}

/** A name as given, its spaces tidied and cut to `MAX_NAME` characters. */
export function cleanName(name: string): string {
  return name.replace(/\s+/g, ' ').trim().slice(0, MAX_NAME);
}

/** "Ana Lima" -> "AL"; one word -> its first letter. */
export function initialsOf(name: string): string {
  const words = cleanName(name).split(' ').filter(Boolean);
  return words
    .slice(0, 2)
    .map(word => word[0].toUpperCase())
    .join('');
}

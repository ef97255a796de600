/**
 * JupyterLab keeps one workspace (the open tabs and their layout) per URL, not per person: in a
 * shared server Bob's reopened tab showed Alice's tabs. Where JupyterLab allows it, the room
 * offers each person their own, `/lab/workspaces/<username>`, once per browser: on a page that
 * shows the default workspace, once someone else is in the room. User settings (the theme) stay
 * one set per server; docs/participants.md says so.
 */
import { URLExt } from '@jupyterlab/coreutils';

import { IMe, IParticipant } from './types';

/** Where the offer was made: it is made once per browser and server. */
export const OFFERED_KEY = 'copilot-room:own-workspace-offered';

/** The URL of `me`'s own workspace when the room should offer it, else null. */
export function ownWorkspace(options: {
  workspace: string;
  baseUrl: string;
  me: IMe | null;
  participants: readonly IParticipant[];
}): string | null {
  const { workspace, baseUrl, me, participants } = options;
  if (workspace !== 'default' || !me || !participants.some(p => p.username !== me.username)) {
    return null;
  }
  return URLExt.join(baseUrl, 'lab', 'workspaces', encodeURIComponent(me.username));
}

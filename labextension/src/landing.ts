/**
 * What the page does for the reader as it opens, once: switch to the room a link named
 * (`?copilot-room=<name>`, ./rooms.ts), and offer a workspace of one's own once someone else is
 * here (./workspace.ts). Notifications, apart from the plugin's wiring (./index.ts).
 */
import { Notification } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';

import { IRoomModel } from './model';
import { IRooms } from './rooms';
import { OFFERED_KEY, ownWorkspace } from './workspace';

/** Offer the reader a workspace of their own once the room shows someone else is here
 * (workspace.ts), once per browser. */
export function offerOwnWorkspace(model: IRoomModel): void {
  const look = () => {
    if (window.localStorage.getItem(OFFERED_KEY)) {
      model.changed.disconnect(look);
      return;
    }
    const url = ownWorkspace({
      workspace: PageConfig.getOption('workspace'),
      baseUrl: PageConfig.getBaseUrl(),
      me: model.me,
      participants: model.participants
    });
    if (!url) {
      return;
    }
    window.localStorage.setItem(OFFERED_KEY, url);
    model.changed.disconnect(look);
    Notification.info(
      'Everyone in this server shares the open tabs and their layout. ' +
        'Open your own workspace to keep yours (the theme and settings stay shared).',
      {
        autoClose: false,
        actions: [{ label: 'Open my workspace', callback: () => window.location.assign(url) }]
      }
    );
  };
  model.changed.connect(look);
  look();
}

/** Switch to the room a link named, once the server's list says it exists (the reader may see
 * it); otherwise say so and stay. */
export async function openLinkedRoom(rooms: IRooms, name: string): Promise<boolean> {
  await rooms.refresh();
  if (!rooms.list.some(room => room.name === name)) {
    Notification.warning(
      `There is no Copilot room named "${name}" on this server: you are in ${rooms.current.name}.`,
      { autoClose: 8000 }
    );
    return false;
  }
  rooms.switchTo(name);
  return true;
}

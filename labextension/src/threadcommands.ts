/** The page's side-thread commands: fork one after a turn (asking its title), and open one in a
 * panel of its own beside the notebook (one panel per thread; opening it again shows it). */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { InputDialog, Notification } from '@jupyterlab/apputils';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { refusalMessage } from './api';
import { IThreadActions } from './components/threads';
import { IRooms } from './rooms';
import { roomRendermime } from './sanitize';
import { ThreadPanel } from './threadpanel';
import { openThread, ThreadsClient } from './threads';
import { IThread } from './types';

export const FORK_THREAD = 'copilot-room:fork-thread';
export const OPEN_THREAD = 'copilot-room:open-thread';

export function registerThreads(
  app: JupyterFrontEnd,
  rooms: IRooms,
  rendermime: IRenderMimeRegistry
): IThreadActions {
  const serverSettings = app.serviceManager.serverSettings;
  const shown = new Map<string, ThreadPanel>();
  const open = (thread: IThread): void => {
    const room = rooms.current;
    const key = `${room.name}/${thread.id}`;
    let view = shown.get(key);
    if (!view) {
      view = new ThreadPanel({
        thread: openThread({
          room: room.name,
          thread: thread.id,
          serverSettings,
          rendermime,
          roomModel: room.model
        }),
        rendermime: roomRendermime(rendermime)
      });
      view.id = `jp-copilot-room-thread-${room.name}-${thread.id}`;
      view.title.label = `Thread: ${thread.title}`;
      view.title.caption = `Side thread of the room ${room.name}`;
      shown.set(key, view);
      view.disposed.connect(() => shown.delete(key));
      app.shell.add(view, 'main', { mode: 'split-right' });
    }
    app.shell.activateById(view.id);
  };
  const fork = async (promptId: string): Promise<void> => {
    const asked = await InputDialog.getText({
      title: 'Fork a side thread',
      label: 'What will you try there? (only you, the people you add and the hosts see it)',
      placeholder: 'e.g. polars instead of pandas',
      okLabel: 'Fork'
    });
    if (!asked.button.accept) {
      return;
    }
    try {
      const threads = new ThreadsClient(serverSettings, rooms.current.name);
      open(await threads.open(asked.value?.trim() || 'Side thread', promptId));
    } catch (error) {
      Notification.error(refusalMessage(error), { autoClose: 8000 });
    }
  };
  app.commands.addCommand(FORK_THREAD, {
    label: 'Fork a side thread from this turn',
    execute: args => fork(String(args.promptId))
  });
  app.commands.addCommand(OPEN_THREAD, {
    label: 'Open a side thread',
    execute: args => {
      const thread = (rooms.current.model.meta.threads ?? []).find(t => t.id === args.id);
      if (thread) {
        open(thread);
      }
    }
  });
  return { fork: promptId => void fork(promptId), open };
}

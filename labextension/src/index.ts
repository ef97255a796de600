/**
 * jupyter-copilot-room's JupyterLab side: the server's rooms and the page's one current room (a
 * service, `IRooms`), a left-sidebar panel showing that room live with a switcher of rooms,
 * commands (open, switch room, new room, focus the prompt, abort, go to what waits on you) with
 * shortcuts, a badge on the sidebar tab and notifications for what waits on the reader, a
 * status-bar item, links to a room (`?copilot-room=<name>`), and the room in notebook outputs
 * (`RoomWidget`). This module wires the plugins; the commands are in ./commands.ts, the tab's
 * count and notifications in ./tabattention.ts, what the page does as it opens in ./landing.ts
 * and the notebook view's plugin in ./notebookview.ts.
 */
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Clipboard, ICommandPalette, Notification } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { CommandToolbarButton, LabIcon } from '@jupyterlab/ui-components';

import { RoomDirectoryClient } from './api';
import { addCommands, CommandIDs } from './commands';
import { contextPlugin } from './context';
import { offerOwnWorkspace, openLinkedRoom } from './landing';
import { notebookViewPlugin } from './notebookview';
import { RoomPanel } from './panel';
import { registerThreads } from './threadcommands';
import { trackProvenance } from './provenance';
import { openRoom } from './room';
import { IRooms, roomFromLink, roomLink, Rooms, withoutRoomParam } from './rooms';
import { roomRendermime } from './sanitize';
import { statusItem } from './status';
import { followAttention } from './tabattention';

const PLUGIN_ID = 'jupyter-copilot-room:plugin';

const roomIcon = new LabIcon({
  name: 'copilot-room:icon',
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="16">' +
    '<g class="jp-icon3" fill="#616161">' +
    '<path d="M12 3a9 9 0 0 0-9 9v5a2 2 0 0 0 2 2h2v-7H5a7 7 0 0 1 14 0h-2v7h2a2 2 0 0 0 ' +
    '2-2v-5a9 9 0 0 0-9-9z"/><circle cx="9.5" cy="14" r="1.3"/><circle cx="14.5" cy="14" ' +
    'r="1.3"/></g></svg>'
});

/** The server's rooms and the page's one connection to the room it is in, shared by the panel
 * and every notebook view. */
const roomsPlugin: JupyterFrontEndPlugin<IRooms> = {
  id: 'jupyter-copilot-room:room',
  description: "The Copilot rooms and the page's one live connection to the current one.",
  autoStart: true,
  provides: IRooms,
  requires: [IRenderMimeRegistry],
  activate: (app: JupyterFrontEnd, rendermime: IRenderMimeRegistry): IRooms => {
    const serverSettings = app.serviceManager.serverSettings;
    const sanitized = roomRendermime(rendermime);
    return new Rooms({
      directory: new RoomDirectoryClient(serverSettings),
      open: (name, draft) => openRoom({ name, serverSettings, rendermime: sanitized, draft })
    });
  }
};

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'A shared room in which several people drive one Copilot agent.',
  autoStart: true,
  requires: [IRenderMimeRegistry, IRooms],
  optional: [
    ILabShell,
    ICommandPalette,
    ISettingRegistry,
    IStatusBar,
    INotebookTracker,
    IDocumentManager
  ],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    rooms: IRooms,
    labShell: ILabShell | null,
    palette: ICommandPalette | null,
    settingRegistry: ISettingRegistry | null,
    statusBar: IStatusBar | null,
    notebooks: INotebookTracker | null,
    documents: IDocumentManager | null
  ) => {
    const panel = new RoomPanel({
      rooms,
      rendermime,
      onExport: () => void app.commands.execute(CommandIDs.exportTranscript),
      onNewRoom: () => void app.commands.execute(CommandIDs.newRoom),
      onLinkChat: service => void app.commands.execute(CommandIDs.linkChatAccount, { service }),
      threads: registerThreads(app, rooms, rendermime),
      onCopyLink: () => {
        Clipboard.copyToSystem(roomLink(PageConfig.getUrl({ mode: 'full' }), rooms.current.name));
        Notification.info(`A link to the room ${rooms.current.name} is on the clipboard.`, {
          autoClose: 4000
        });
      }
    });
    panel.id = 'jp-copilot-room';
    panel.title.icon = roomIcon;
    panel.title.caption = 'Copilot room';
    panel.title.className = 'jp-CopilotRoom-tab';
    // JupyterLab's left sidebar, beside the file browser; Notebook 7 (no ILabShell) keeps its
    // left one for the table of contents, and the room goes on the right.
    app.shell.add(panel, labShell ? 'left' : 'right', { rank: 600 });

    const open = () => app.shell.activateById(panel.id);
    const showNext = followAttention(rooms, panel, open);
    if (labShell) {
      offerOwnWorkspace(rooms.current.model); // Notebook 7's pages have no workspaces
    }
    addCommands(app, { rooms, panel, icon: roomIcon, open, showNext, documents });
    if (palette) {
      for (const command of Object.values(CommandIDs)) {
        palette.addItem({ command, category: 'Copilot Room' });
      }
    }
    if (notebooks) {
      trackProvenance(notebooks, rooms, (room, promptId) => {
        rooms.switchTo(room);
        open();
        panel.showEntry(promptId);
      });
      if (!labShell) {
        // Notebook 7 has no left sidebar and hides its right one: each notebook's toolbar
        // carries the way in (in JupyterLab the room's tab is always in sight).
        notebooks.widgetAdded.connect((_, notebook) => {
          const button = new CommandToolbarButton({
            commands: app.commands,
            id: CommandIDs.open,
            label: 'Copilot room'
          });
          button.addClass('jp-CopilotRoom-toolbarButton');
          if (!notebook.toolbar.insertAfter('cellType', 'copilotRoom', button)) {
            notebook.toolbar.addItem('copilotRoom', button);
          }
        });
      }
    }
    if (statusBar) {
      statusBar.registerStatusItem(PLUGIN_ID, {
        item: statusItem(rooms, open),
        align: 'left',
        rank: 4
      });
    }
    // A link to a room (`?copilot-room=<name>`) opens the panel on it; the parameter leaves the
    // address once read, so a reload or a bookmark of the page does not switch rooms again.
    const linked = roomFromLink(window.location.href);
    if (linked) {
      window.history.replaceState(window.history.state, '', withoutRoomParam(window.location.href));
      void openLinkedRoom(rooms, linked).then(async found => {
        if (found) {
          await app.restored;
          open();
        }
      });
    }
    if (settingRegistry) {
      void Promise.all([settingRegistry.load(PLUGIN_ID), app.restored]).then(([settings]) => {
        if (settings.get('openOnStart').composite) {
          open();
        }
      });
    }
  }
};

export default [roomsPlugin, plugin, notebookViewPlugin, contextPlugin];

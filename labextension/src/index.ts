/**
 * jupyter-copilot-room's JupyterLab side: the server's rooms and the page's one current room (a
 * service, `IRooms`), a left-sidebar panel showing that room live with a switcher of rooms,
 * commands (open, switch room, new room, focus the prompt, abort, go to what waits on you) with
 * shortcuts, a badge on the sidebar tab and notifications for what waits on the reader, a
 * status-bar item, links to a room (`?copilot-room=<name>`), and the room in notebook outputs
 * (`RoomWidget`).
 */
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Clipboard, ICommandPalette, Notification } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';
import { ReadonlyPartialJSONObject } from '@lumino/coreutils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { CommandToolbarButton, LabIcon } from '@jupyterlab/ui-components';

import { refusalMessage, RoomDirectoryClient } from './api';
import { linkChatLabel, serviceName } from './chats';
import { Attention, INeed } from './attention';
import { contextPlugin } from './context';
import { RoomPanel } from './panel';
import { registerThreads } from './threadcommands';
import { exportTranscript } from './components/export';
import { newRoomDialog } from './components/newroom';
import { isAdmitted, mayAbort, mayExport, maySubmit } from './policy';
import { trackProvenance } from './provenance';
import { IRoomModel } from './model';
import { IRoom, openRoom } from './room';
import { IRooms, roomFromLink, roomLink, Rooms, withoutRoomParam } from './rooms';
import { roomRendermime } from './sanitize';
import { statusItem } from './status';
import { LiveModels } from './widget/live';
import { MODULE_NAME, MODULE_VERSION, ROOM_MIME_TYPE } from './widget/options';
import { OFFERED_KEY, ownWorkspace } from './workspace';
import { RENDERER_RANK, RoomOutputRenderer } from './widget/renderer';

const PLUGIN_ID = 'jupyter-copilot-room:plugin';

namespace CommandIDs {
  export const open = 'copilot-room:open';
  export const focusPrompt = 'copilot-room:focus-prompt';
  export const abort = 'copilot-room:abort';
  export const nextCard = 'copilot-room:next-card';
  export const exportTranscript = 'copilot-room:export';
  export const switchRoom = 'copilot-room:switch-room';
  export const newRoom = 'copilot-room:new-room';
  export const linkChatAccount = 'copilot-room:link-chat-account';
}

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

/**
 * The room in notebook outputs. `RoomWidget`'s output holds our mime type beside ipywidgets'
 * view; its renderer shows the room live whether or not the kernel still has the widget model
 * (widget/renderer.ts). The widget classes are registered with ipywidgets' widget manager when
 * ipywidgets' frontend is on the page; `@jupyter-widgets/base` is a shared singleton loaded only
 * then, so the panel works without it.
 */
const notebookViewPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-copilot-room:notebook-view',
  description: 'The live Copilot room in notebook outputs (RoomWidget).',
  autoStart: true,
  requires: [IRooms, IRenderMimeRegistry],
  activate: (app: JupyterFrontEnd, rooms: IRooms, rendermime: IRenderMimeRegistry) => {
    const live = new LiveModels();
    rendermime.addFactory(
      {
        safe: true,
        mimeTypes: [ROOM_MIME_TYPE],
        createRenderer: () => new RoomOutputRenderer(rooms, live)
      },
      RENDERER_RANK
    );
    return registerWidget(app, rooms, live);
  }
};

async function registerWidget(
  app: JupyterFrontEnd,
  rooms: IRooms,
  live: LiveModels
): Promise<void> {
  let base: typeof import('@jupyter-widgets/base');
  try {
    base = await import('@jupyter-widgets/base');
  } catch {
    return; // no ipywidgets frontend: outputs still show the room, from their saved options
  }
  const registry = await app.resolveOptionalService(base.IJupyterWidgetRegistry);
  registry?.registerWidget({
    name: MODULE_NAME,
    version: MODULE_VERSION,
    exports: async () => (await import('./widget/ipywidget')).widgetExports(rooms, live)
  });
}

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
    app.commands.addCommand(CommandIDs.open, {
      label: 'Open the Copilot Room',
      caption: 'Show the shared Copilot room in the sidebar',
      icon: roomIcon,
      execute: open
    });
    app.commands.addCommand(CommandIDs.switchRoom, {
      label: 'Switch Copilot Room…',
      caption: 'Go to another Copilot room on this server',
      execute: () => {
        open();
        panel.openSwitcher();
      }
    });
    app.commands.addCommand(CommandIDs.newRoom, {
      label: 'New Copilot Room…',
      caption: 'A room of its own for a folder of the server (hosts)',
      isEnabled: () => rooms.canCreate,
      execute: async () => {
        if (await newRoomDialog(rooms, documents)) {
          open();
        }
      }
    });
    app.commands.addCommand(CommandIDs.exportTranscript, {
      label: 'Export the Copilot Room Transcript…',
      caption: 'Download the transcript, or open it, as a notebook, Markdown or JSONL',
      isEnabled: () => mayExport(rooms.current.model.me),
      execute: () => exportTranscript(app, rooms.current.client)
    });
    /** The chat service the command links an account of: the one it is given, else the first
     * the room offers (`GET room`'s `chats`), none for someone who is not admitted. */
    const chatOf = (args: ReadonlyPartialJSONObject): string | null => {
      const { model } = rooms.current;
      const chats = isAdmitted(model.me) ? model.chats : [];
      const asked = typeof args.service === 'string' ? args.service : null;
      return asked ? (chats.includes(asked) ? asked : null) : (chats[0] ?? null);
    };
    app.commands.addCommand(CommandIDs.linkChatAccount, {
      label: args => linkChatLabel(chatOf(args) ?? (args.service as string | undefined)),
      caption: args => {
        const chat = chatOf(args);
        return chat
          ? `A one-time code to send to the room's bot in ${serviceName(chat)}: you then act there as yourself`
          : 'The room offers no chat account to link';
      },
      describedBy: {
        args: {
          type: 'object',
          properties: { service: { type: 'string', description: 'The chat service: slack' } }
        }
      },
      isEnabled: args => chatOf(args) !== null,
      isVisible: args => chatOf(args) !== null,
      execute: args => {
        const service = chatOf(args);
        if (service) {
          open();
          panel.linkChat(service);
        }
      }
    });
    app.commands.addCommand(CommandIDs.focusPrompt, {
      label: 'Focus the Copilot Room Prompt',
      isEnabled: () => maySubmit(rooms.current.model.me),
      execute: () => {
        open();
        panel.focusPrompt();
      }
    });
    app.commands.addCommand(CommandIDs.abort, {
      label: 'Abort the Running Copilot Turn',
      isEnabled: () => {
        const { model } = rooms.current;
        return mayAbort(model.me) && !!model.meta.turn_prompt;
      },
      // A refusal (already stopping, nothing running any more) is said where the shortcut was
      // pressed: in a notification, as there is no button to show it next to.
      execute: () =>
        rooms.current.client.abort().catch(error => {
          Notification.error(refusalMessage(error), { autoClose: 5000 });
        })
    });

    let attention = watchAttention(rooms.current);
    let lastShown: string | undefined;
    const showNeed = (need: INeed) => {
      open();
      lastShown = need.key;
      panel.showNeed(need, true);
    };
    /** What waits on the reader in the current room: a count on the sidebar tab, a notification
     * while the panel is out of sight, and into view when it is shown (attention.ts). */
    function watchAttention(room: IRoom): Attention {
      const watched = new Attention(room.model, {
        isShown: () => panel.isVisible && !document.hidden,
        notify: need => {
          const notify = need.kind === 'card' ? Notification.warning : Notification.info;
          notify(need.text, {
            autoClose: 10000,
            actions: [{ label: 'Show', callback: () => showNeed(need) }]
          });
        }
      });
      const mark = (fresh: readonly INeed[]) => {
        const count = watched.needs.length;
        panel.title.className = count
          ? 'jp-CopilotRoom-tab jp-mod-attention'
          : 'jp-CopilotRoom-tab';
        // The shell keeps the widget's id in the dataset (its tab's clicks need it): keep the rest.
        const dataset = { ...panel.title.dataset };
        delete dataset['copilot-attention'];
        panel.title.dataset = count ? { ...dataset, 'copilot-attention': String(count) } : dataset;
        panel.title.caption = count
          ? `Copilot room: ${count === 1 ? 'something waits' : `${count} things wait`} on you`
          : 'Copilot room';
        if (fresh.length && panel.isVisible) {
          panel.showNeed(fresh[0], false);
        }
      };
      watched.changed.connect((_, fresh) => mark(fresh));
      mark([]);
      room.model.changed.connect(() => app.commands.notifyCommandChanged());
      return watched;
    }
    if (labShell) {
      offerOwnWorkspace(rooms.current.model); // Notebook 7's pages have no workspaces
    }
    rooms.currentChanged.connect((_, room) => {
      attention.dispose();
      attention = watchAttention(room);
      lastShown = undefined;
      app.commands.notifyCommandChanged();
    });
    rooms.listChanged.connect(() => app.commands.notifyCommandChanged());
    app.commands.addCommand(CommandIDs.nextCard, {
      label: 'Go to What Waits on You in the Copilot Room',
      caption: 'Your approval or question, or someone at the door',
      execute: () => {
        const need = attention.next(lastShown);
        if (need) {
          showNeed(need);
        } else {
          open();
        }
      }
    });
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

/** Offer the reader a workspace of their own once the room shows someone else is here
 * (workspace.ts), once per browser. */
function offerOwnWorkspace(model: IRoomModel): void {
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
async function openLinkedRoom(rooms: IRooms, name: string): Promise<boolean> {
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

export default [roomsPlugin, plugin, notebookViewPlugin, contextPlugin];

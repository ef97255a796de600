/**
 * jupyter-copilot-room's JupyterLab side: the page's one room connection (a service), a
 * left-sidebar panel showing the shared room live, commands (open, focus the prompt, abort, go to
 * what waits on you) with shortcuts, a badge on the sidebar tab and notifications for what waits
 * on the reader, a status-bar item, and the room in notebook outputs (`RoomWidget`).
 */
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { LabIcon } from '@jupyterlab/ui-components';

import { refusalMessage, RoomClient } from './api';
import { Attention, INeed } from './attention';
import { RoomConnection } from './connection';
import { contextPlugin } from './context';
import { EarlierHistory } from './history';
import { RoomModel } from './model';
import { RoomPanel } from './panel';
import { exportTranscript } from './components/export';
import { mayAbort, mayExport, maySubmit } from './policy';
import { trackProvenance } from './provenance';
import { IRoom } from './room';
import { roomRendermime } from './sanitize';
import { websocketProvider } from './socket';
import { statusItem } from './status';
import { LiveModels } from './widget/live';
import { MODULE_NAME, MODULE_VERSION, ROOM_MIME_TYPE } from './widget/options';
import { RENDERER_RANK, RoomOutputRenderer } from './widget/renderer';

const PLUGIN_ID = 'jupyter-copilot-room:plugin';

namespace CommandIDs {
  export const open = 'copilot-room:open';
  export const focusPrompt = 'copilot-room:focus-prompt';
  export const abort = 'copilot-room:abort';
  export const nextCard = 'copilot-room:next-card';
  export const exportTranscript = 'copilot-room:export';
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

/** The page's one connection to the room, shared by the panel and every notebook view. */
const roomPlugin: JupyterFrontEndPlugin<IRoom> = {
  id: 'jupyter-copilot-room:room',
  description: "The page's one live connection to the Copilot room.",
  autoStart: true,
  provides: IRoom,
  requires: [IRenderMimeRegistry],
  activate: (app: JupyterFrontEnd, rendermime: IRenderMimeRegistry): IRoom => {
    const client = new RoomClient();
    const model = new RoomModel();
    const connection = new RoomConnection({
      client,
      model,
      provider: websocketProvider(client.serverSettings)
    });
    connection.start();
    const history = new EarlierHistory({ client, model });
    return { client, model, history, rendermime: roomRendermime(rendermime) };
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
  requires: [IRoom, IRenderMimeRegistry],
  activate: (app: JupyterFrontEnd, room: IRoom, rendermime: IRenderMimeRegistry) => {
    const live = new LiveModels();
    rendermime.addFactory(
      {
        safe: true,
        mimeTypes: [ROOM_MIME_TYPE],
        createRenderer: () => new RoomOutputRenderer(room, live)
      },
      RENDERER_RANK
    );
    return registerWidget(app, room, live);
  }
};

async function registerWidget(app: JupyterFrontEnd, room: IRoom, live: LiveModels): Promise<void> {
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
    exports: async () => (await import('./widget/ipywidget')).widgetExports(room, live)
  });
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'A shared room in which several people drive one Copilot agent.',
  autoStart: true,
  requires: [IRenderMimeRegistry, IRoom],
  optional: [ILabShell, ICommandPalette, ISettingRegistry, IStatusBar, INotebookTracker],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    room: IRoom,
    labShell: ILabShell | null,
    palette: ICommandPalette | null,
    settingRegistry: ISettingRegistry | null,
    statusBar: IStatusBar | null,
    notebooks: INotebookTracker | null
  ) => {
    const { client, history } = room;
    const model = room.model;
    const panel = new RoomPanel({
      model,
      client,
      rendermime,
      history,
      onExport: () => void app.commands.execute(CommandIDs.exportTranscript)
    });
    panel.id = 'jp-copilot-room';
    panel.title.icon = roomIcon;
    panel.title.caption = 'Copilot room';
    panel.title.className = 'jp-CopilotRoom-tab';
    app.shell.add(panel, 'left', { rank: 600 });

    const open = () => app.shell.activateById(panel.id);
    app.commands.addCommand(CommandIDs.open, {
      label: 'Open the Copilot Room',
      caption: 'Show the shared Copilot room in the sidebar',
      icon: roomIcon,
      execute: open
    });
    app.commands.addCommand(CommandIDs.exportTranscript, {
      label: 'Export the Copilot Room Transcript…',
      caption: 'Download the transcript, or open it, as a notebook, Markdown or JSONL',
      isEnabled: () => mayExport(model.me),
      execute: () => exportTranscript(app, client)
    });
    app.commands.addCommand(CommandIDs.focusPrompt, {
      label: 'Focus the Copilot Room Prompt',
      isEnabled: () => maySubmit(model.me),
      execute: () => {
        open();
        panel.focusPrompt();
      }
    });
    app.commands.addCommand(CommandIDs.abort, {
      label: 'Abort the Running Copilot Turn',
      isEnabled: () => mayAbort(model.me) && !!model.meta.turn_prompt,
      // A refusal (already stopping, nothing running any more) is said where the shortcut was
      // pressed: in a notification, as there is no button to show it next to.
      execute: () =>
        client.abort().catch(error => {
          Notification.error(refusalMessage(error), { autoClose: 5000 });
        })
    });

    // What waits on the reader: a count on the sidebar tab, a notification while the panel is
    // out of sight, and into view when it is shown (attention.ts).
    const attention = new Attention(model, {
      isShown: () => panel.isVisible && !document.hidden,
      notify: need => {
        const notify = need.kind === 'card' ? Notification.warning : Notification.info;
        notify(need.text, {
          autoClose: 10000,
          actions: [{ label: 'Show', callback: () => showNeed(need) }]
        });
      }
    });
    let lastShown: string | undefined;
    const showNeed = (need: INeed) => {
      open();
      lastShown = need.key;
      panel.showNeed(need, true);
    };
    attention.changed.connect((_, fresh) => {
      const count = attention.needs.length;
      panel.title.className = count ? 'jp-CopilotRoom-tab jp-mod-attention' : 'jp-CopilotRoom-tab';
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
    });
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
    model.changed.connect(() => app.commands.notifyCommandChanged());
    if (palette) {
      for (const command of Object.values(CommandIDs)) {
        palette.addItem({ command, category: 'Copilot Room' });
      }
    }
    if (notebooks) {
      trackProvenance(notebooks, model, promptId => {
        open();
        panel.showEntry(promptId);
      });
    }
    if (statusBar) {
      statusBar.registerStatusItem(PLUGIN_ID, {
        item: statusItem(model, open),
        align: 'left',
        rank: 4
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

export default [roomPlugin, plugin, notebookViewPlugin, contextPlugin];

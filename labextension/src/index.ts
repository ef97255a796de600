/**
 * jupyter-copilot-room's JupyterLab side: a left-sidebar panel showing the shared room live,
 * commands (open, focus the prompt, abort) with shortcuts, and a status-bar item.
 */
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { LabIcon } from '@jupyterlab/ui-components';

import { refusalMessage, RoomClient } from './api';
import { RoomConnection } from './connection';
import { RoomModel } from './model';
import { RoomPanel } from './panel';
import { mayAbort, maySubmit } from './policy';
import { trackProvenance } from './provenance';
import { websocketProvider } from './socket';
import { statusItem } from './status';

const PLUGIN_ID = 'jupyter-copilot-room:plugin';

namespace CommandIDs {
  export const open = 'copilot-room:open';
  export const focusPrompt = 'copilot-room:focus-prompt';
  export const abort = 'copilot-room:abort';
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

const plugin: JupyterFrontEndPlugin<void> = {
  id: PLUGIN_ID,
  description: 'A shared room in which several people drive one Copilot agent.',
  autoStart: true,
  requires: [IRenderMimeRegistry],
  optional: [ILabShell, ICommandPalette, ISettingRegistry, IStatusBar, INotebookTracker],
  activate: (
    app: JupyterFrontEnd,
    rendermime: IRenderMimeRegistry,
    labShell: ILabShell | null,
    palette: ICommandPalette | null,
    settingRegistry: ISettingRegistry | null,
    statusBar: IStatusBar | null,
    notebooks: INotebookTracker | null
  ) => {
    const client = new RoomClient();
    const model = new RoomModel();
    const connection = new RoomConnection({
      client,
      model,
      provider: websocketProvider(client.serverSettings)
    });
    connection.start();
    const panel = new RoomPanel({ model, client, rendermime });
    panel.id = 'jp-copilot-room';
    panel.title.icon = roomIcon;
    panel.title.caption = 'Copilot room';
    app.shell.add(panel, 'left', { rank: 600 });

    const open = () => app.shell.activateById(panel.id);
    app.commands.addCommand(CommandIDs.open, {
      label: 'Open the Copilot Room',
      caption: 'Show the shared Copilot room in the sidebar',
      icon: roomIcon,
      execute: open
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

export default plugin;

/** "New room…": a name and a folder (relative to the server's root, picked with JupyterLab's
 * folder dialog or typed), created by the server (which says no with a reason: shown in the
 * dialog), then the page switches to it. */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { FileDialog } from '@jupyterlab/filebrowser';
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { IRoomEntry, refusalMessage } from '../api';
import { IRooms, suggestRoomName } from '../rooms';

const CREATE = 'Create';
const CHOOSE = 'Choose folder…';

interface INewRoom {
  name: string;
  folder: string;
}

/** The dialog's body: the name, the folder, and the server's last refusal. */
class NewRoomForm extends ReactWidget {
  constructor(
    private readonly _values: INewRoom,
    private readonly _error: string
  ) {
    super();
    this.addClass('jp-CopilotRoom-newRoom');
  }

  getValue(): INewRoom {
    const field = (name: string) =>
      this.node.querySelector<HTMLInputElement>(`input[name="${name}"]`)?.value.trim() ?? '';
    return { name: field('name'), folder: field('folder').replace(/^\/+|\/+$/g, '') };
  }

  render(): JSX.Element {
    return (
      <>
        <label className="jp-CopilotRoom-newRoomField">
          Name
          <input
            className="jp-mod-styled"
            name="name"
            defaultValue={this._values.name}
            placeholder="analysis"
            aria-describedby="jp-CopilotRoom-newRoomHelp"
            autoComplete="off"
          />
        </label>
        <label className="jp-CopilotRoom-newRoomField">
          Folder (from the server&apos;s root; empty for the root)
          <input
            className="jp-mod-styled"
            name="folder"
            defaultValue={this._values.folder}
            placeholder="projects/analysis"
            autoComplete="off"
          />
        </label>
        <p id="jp-CopilotRoom-newRoomHelp" className="jp-CopilotRoom-newRoomHelp">
          The room&apos;s agent works in this folder only. A name is lower-case letters, digits, -
          and _.
        </p>
        {this._error && (
          <p className="jp-CopilotRoom-newRoomError" role="alert">
            {this._error}
          </p>
        )}
      </>
    );
  }
}

/** Ask for the name and folder until the server creates the room, or the reader cancels. */
export async function newRoomDialog(
  rooms: IRooms,
  manager: IDocumentManager | null
): Promise<IRoomEntry | null> {
  let values: INewRoom = { name: '', folder: '' };
  let error = '';
  for (;;) {
    const result = await showDialog({
      title: 'New Copilot room',
      body: new NewRoomForm(values, error),
      buttons: [
        Dialog.cancelButton(),
        ...(manager ? [Dialog.okButton({ label: CHOOSE, displayType: 'default' })] : []),
        Dialog.okButton({ label: CREATE })
      ],
      focusNodeSelector: 'input[name="name"]'
    });
    if (!result.button.accept || !result.value) {
      return null;
    }
    values = result.value;
    if (result.button.label === CHOOSE && manager) {
      const picked = await FileDialog.getExistingDirectory({
        manager,
        title: 'The new room’s folder',
        defaultPath: values.folder
      });
      const folder = picked.button.accept ? picked.value?.[0] : undefined;
      if (folder) {
        values = { name: values.name || suggestRoomName(folder.name), folder: folder.path };
      }
      error = '';
      continue;
    }
    try {
      return await rooms.create(values.name, values.folder);
    } catch (refusal) {
      error = refusalMessage(refusal);
    }
  }
}

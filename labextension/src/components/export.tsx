/** The "Export…" dialog: a format, then Download, or Open in JupyterLab (saved in the exports
 * folder under the name the room gives it, then opened like any document). */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { ExportFormat, IExported, IRoomClient, refusalMessage } from '../api';
import { contentsOf, EXPORT_FOLDER, EXPORT_FORMATS, readersTimeZone } from '../exporting';

const OPEN = 'Open in JupyterLab';
const DOWNLOAD = 'Download';

/** The dialog's body: which format. */
class FormatChoice extends ReactWidget {
  getValue(): ExportFormat {
    const select = this.node.querySelector('select');
    return (select?.value as ExportFormat | undefined) ?? 'ipynb';
  }

  render(): JSX.Element {
    return (
      <label className="jp-CopilotRoom-exportChoice">
        Format{' '}
        <select className="jp-mod-styled" aria-label="Export format" defaultValue="ipynb">
          {EXPORT_FORMATS.map(({ format, label }) => (
            <option key={format} value={format}>
              {label}
            </option>
          ))}
        </select>
      </label>
    );
  }
}

/** Ask which format, then download the export or open it in JupyterLab. */
export async function exportTranscript(app: JupyterFrontEnd, client: IRoomClient): Promise<void> {
  const result = await showDialog({
    title: 'Export the transcript',
    body: new FormatChoice(),
    buttons: [
      Dialog.cancelButton(),
      Dialog.okButton({ label: DOWNLOAD }),
      Dialog.okButton({ label: OPEN })
    ],
    defaultButton: 2
  });
  if (!result.button.accept || result.value === null) {
    return;
  }
  const format = result.value;
  let exported: IExported;
  try {
    exported = await client.exportTranscript(format, readersTimeZone());
  } catch (error) {
    Notification.error(`The export failed: ${refusalMessage(error)}`, { autoClose: 8000 });
    return;
  }
  if (result.button.label === DOWNLOAD) {
    download(exported);
    return;
  }
  try {
    const contents = app.serviceManager.contents;
    await contents.get(EXPORT_FOLDER, { content: false }).catch(async () => {
      const made = await contents.newUntitled({ type: 'directory' });
      await contents.rename(made.path, EXPORT_FOLDER);
    });
    const path = `${EXPORT_FOLDER}/${exported.name}`;
    const saved = await contents.save(path, {
      ...contentsOf(format, exported.text),
      name: exported.name,
      path
    });
    // Markdown opens rendered, to read (its source is one "Open With" away).
    const factory = format === 'md' ? 'Markdown Preview' : undefined;
    await app.commands.execute('docmanager:open', { path: saved.path, factory });
  } catch (error) {
    Notification.error(`The export could not be opened: ${refusalMessage(error)}`, {
      autoClose: 8000
    });
  }
}

function download(exported: IExported): void {
  const url = URL.createObjectURL(new Blob([exported.text]));
  const link = document.createElement('a');
  link.href = url;
  link.download = exported.name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}

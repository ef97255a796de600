/**
 * What the reader is looking at, offered to their prompt (./chips.ts): the prompt box's
 * "Attach…" lists the active notebook and its selected cells, or the open file and its selection;
 * a notebook output's context menu has "Send to the Copilot Room", which attaches that output (an
 * image, or its text) to the next prompt and shows the prompt box.
 */
import { ILabShell, JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { Notification } from '@jupyterlab/apputils';
import { CodeCell } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { contextTray, IChip, IOffer } from './chips';
import {
  CHIP_MIMES,
  MAX_CHIP_CELLS,
  MAX_CHIP_TEXT,
  MAX_CHIPS,
  MAX_IMAGE_BYTES
} from './generated/declarations';
import { maySubmit } from './policy';
import { IRooms } from './rooms';

const SEND_OUTPUT = 'copilot-room:send-output';
const FOCUS_PROMPT = 'copilot-room:focus-prompt';
/** The image types an output chip may carry (`events.Chip`, generated). */
const IMAGE_TYPES = CHIP_MIMES.filter(mime => mime.startsWith('image/'));

/** A file editor's document widget, as far as a chip needs it (no @jupyterlab/fileeditor). */
interface IEditorLike {
  context: { localPath: string };
  content: {
    editor: {
      getSelection(): {
        start: { line: number; column: number };
        end: { line: number; column: number };
      };
    };
  };
}

function isEditor(widget: Widget | null): widget is Widget & IEditorLike {
  const content = (widget as unknown as Partial<IEditorLike> | null)?.content;
  return !!content?.editor && typeof content.editor.getSelection === 'function';
}

function name(path: string): string {
  return path.split('/').pop() || path;
}

/** What the active notebook or file offers now. */
function offersOf(current: Widget | null, notebooks: INotebookTracker | null): IOffer[] {
  const notebook = notebooks?.currentWidget ?? null;
  if (notebook && (current === null || current === notebook)) {
    const path = notebook.context.localPath;
    const ids = notebook.content.widgets
      .filter(cell => notebook.content.isSelectedOrActive(cell))
      .map(cell => cell.model.id)
      .slice(0, MAX_CHIP_CELLS);
    const offers: IOffer[] = [];
    if (ids.length) {
      offers.push({
        label:
          ids.length === 1
            ? `The selected cell of ${name(path)}`
            : `The ${ids.length} selected cells of ${name(path)}`,
        chip: { kind: 'cells', path, cell_ids: ids }
      });
    }
    offers.push({ label: `The notebook ${name(path)}`, chip: { kind: 'notebook', path } });
    return offers;
  }
  if (isEditor(current)) {
    const path = current.context.localPath;
    const offers: IOffer[] = [];
    const { start, end } = current.content.editor.getSelection();
    const [first, last] = start.line <= end.line ? [start, end] : [end, start];
    if (first.line !== last.line || first.column !== last.column) {
      // A selection ending at the start of a line does not take that line.
      const endLine = last.column === 0 && last.line > first.line ? last.line : last.line + 1;
      const startLine = first.line + 1;
      offers.push({
        label:
          startLine === endLine
            ? `Line ${startLine} of ${name(path)}`
            : `Lines ${startLine}–${endLine} of ${name(path)}`,
        chip: { kind: 'selection', path, start_line: startLine, end_line: endLine }
      });
    }
    offers.push({ label: `The file ${name(path)}`, chip: { kind: 'file', path } });
    return offers;
  }
  return [];
}

/** The output under `node` as a chip: an image (base64), or its text. */
function outputChip(panel: NotebookPanel, node: HTMLElement): IChip | string {
  const cell = panel.content.widgets.find(c => c.node.contains(node));
  if (!(cell instanceof CodeCell)) {
    return 'This output belongs to no code cell.';
  }
  const index = cell.outputArea.widgets.findIndex(w => w.node.contains(node));
  const output = index >= 0 ? cell.model.outputs.get(index) : undefined;
  if (!output) {
    return 'This output could not be read.';
  }
  const base = {
    kind: 'output' as const,
    path: panel.context.localPath,
    cell_ids: [cell.model.id]
  };
  const data = output.data;
  for (const mime of IMAGE_TYPES) {
    const value = data[mime];
    if (typeof value === 'string') {
      const image = value.replace(/\s/g, '');
      const bytes = Math.floor((image.length * 3) / 4);
      if (bytes > MAX_IMAGE_BYTES) {
        return `This image has ${bytes.toLocaleString('en')} bytes; the room takes up to ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB.`;
      }
      return { ...base, mime, data: image };
    }
  }
  const textual = ['text/plain', 'application/vnd.jupyter.stdout', 'application/vnd.jupyter.stderr']
    .map(mime => data[mime])
    .find(value => typeof value === 'string') as string | undefined;
  let text = textual ?? node.textContent ?? '';
  if (text.length > MAX_CHIP_TEXT) {
    const marker = '\n[... the rest of the output was cut]';
    text = text.slice(0, MAX_CHIP_TEXT - marker.length) + marker;
  }
  return { ...base, mime: 'text/plain', text };
}

export const contextPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-copilot-room:context',
  description: 'Attach what you are looking at (notebook, cells, file, an output) to a prompt.',
  autoStart: true,
  requires: [IRooms],
  optional: [INotebookTracker, ILabShell],
  activate: (
    app: JupyterFrontEnd,
    rooms: IRooms,
    notebooks: INotebookTracker | null,
    labShell: ILabShell | null
  ) => {
    contextTray.offers = () => offersOf(labShell?.currentWidget ?? null, notebooks);
    app.commands.addCommand(SEND_OUTPUT, {
      label: 'Send to the Copilot Room',
      caption: 'Attach this output to your next prompt in the Copilot room',
      isEnabled: () => maySubmit(rooms.current.model.me),
      execute: () => {
        const node = app.contextMenuHitTest(n => n.classList.contains('jp-OutputArea-output'));
        const panel = node && notebooks?.find(p => p.node.contains(node));
        if (!node || !panel) {
          return;
        }
        const chip = outputChip(panel, node);
        if (typeof chip === 'string') {
          Notification.error(chip, { autoClose: 5000 });
          return;
        }
        if (!contextTray.add(chip)) {
          Notification.error(`A prompt takes at most ${MAX_CHIPS} attachments.`, {
            autoClose: 5000
          });
          return;
        }
        Notification.info('The output is attached to your next prompt in the Copilot room.', {
          autoClose: 4000
        });
        if (app.commands.hasCommand(FOCUS_PROMPT)) {
          void app.commands.execute(FOCUS_PROMPT);
        }
      }
    });
    app.contextMenu.addItem({ command: SEND_OUTPUT, selector: '.jp-OutputArea-output', rank: 20 });
  }
};

/**
 * "Export…": the transcript as a notebook, Markdown or JSONL (`GET transcript?format=`, rendered
 * by the room: jupyter_copilot_room/export.py), for hosts and members. The formats offered, and
 * how an export is saved to be opened in JupyterLab; the dialog is ./components/export.tsx.
 */
import { Contents } from '@jupyterlab/services';

import { ExportFormat } from './api';

export const EXPORT_FORMATS: readonly { format: ExportFormat; label: string }[] = [
  { format: 'ipynb', label: 'Notebook (.ipynb)' },
  { format: 'md', label: 'Markdown (.md)' },
  { format: 'jsonl', label: 'JSON Lines, the raw transcript (.jsonl)' }
];

/** How the contents service saves an export: a notebook as JSON, anything else as text. */
export function contentsOf(format: ExportFormat, text: string): Partial<Contents.IModel> {
  if (format === 'ipynb') {
    return { type: 'notebook', format: 'json', content: JSON.parse(text) };
  }
  return { type: 'file', format: 'text', content: text };
}

/** Where "Open in JupyterLab" saves exports: one folder of their own beside the repository's
 * files, which checkpoints leave out (jupyter_copilot_room/checkpoints/checkpoint_git.py), so an export
 * is never a turn's change. */
export const EXPORT_FOLDER = 'copilot-room-exports';

/** The reader's time zone, as the panel shows times (the export's times match them). */
export function readersTimeZone(): string | undefined {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
}

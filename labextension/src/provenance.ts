/**
 * Provenance in the notebook itself: every cell the agent created or changed carries
 * `metadata.copilot_room` (prompt, author, turn, tool call); the active notebook shows a small
 * badge on those cells, and the badge leads to the prompt's entry in the room's transcript.
 *
 * Anyone who edits a notebook can write that metadata, so a badge shows only where the room's
 * own records agree: a notebook tool call with that id, for that prompt, by that prompt's author.
 */
import { Cell } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { IRoomModel } from './model';
import { nameOf } from './names';
import { IRooms } from './rooms';

const BADGE = 'jp-CopilotRoom-provenance';

export interface IProvenance {
  prompt_id: string;
  author: string;
  turn: number;
  tool_call_id: string;
  time: number;
}

/** Keep the badges of every open notebook in step with its cells' metadata and the room the
 * page is in (another room's records vouch for none of this room's cells). */
export function trackProvenance(
  notebooks: INotebookTracker,
  rooms: Pick<IRooms, 'current' | 'currentChanged'>,
  showPrompt: (promptId: string) => void
): void {
  const follow = (panel: NotebookPanel) => {
    let frame = 0;
    let room = rooms.current.model;
    // After the change, once the notebook has made widgets for new cells.
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        const recorded = notebookToolCalls(room);
        for (const cell of panel.content.widgets) {
          mark(cell, recorded, room, showPrompt);
        }
      });
    };
    const listen = (on: boolean) => {
      const how = on ? 'connect' : 'disconnect';
      room.entriesChanged[how](update);
      room.changed[how](update);
    };
    const switched = () => {
      listen(false);
      room = rooms.current.model;
      listen(true);
      update();
    };
    void panel.context.ready.then(() => {
      update();
      panel.content.model?.contentChanged.connect(update);
      panel.content.model?.cells.changed.connect(update);
      panel.content.modelContentChanged.connect(update);
      listen(true);
      rooms.currentChanged.connect(switched);
      panel.disposed.connect(() => {
        listen(false);
        rooms.currentChanged.disconnect(switched);
      });
    });
  };
  notebooks.forEach(follow);
  notebooks.widgetAdded.connect((_, panel) => follow(panel));
}

/** `tool call id -> "prompt id author"` of every notebook tool call the room recorded. */
export function notebookToolCalls(room: IRoomModel): Map<string, string> {
  const authors = new Map<string, string>();
  const calls = new Map<string, string>();
  for (const source of room.entries) {
    const entry = source.read();
    if (entry.kind === 'prompt') {
      authors.set(entry.id, entry.author);
    } else if (entry.kind === 'tool' && entry.tool.startsWith('notebook_')) {
      calls.set(entry.id, entry.prompt_id);
    }
  }
  const recorded = new Map<string, string>();
  for (const [call, prompt] of calls) {
    recorded.set(call, `${prompt} ${authors.get(prompt) ?? ''}`);
  }
  return recorded;
}

/** Whether the room's records vouch for a cell's provenance metadata. */
export function vouchedFor(
  provenance: IProvenance | undefined,
  recorded: Map<string, string>
): provenance is IProvenance {
  return (
    !!provenance &&
    recorded.get(provenance.tool_call_id) === `${provenance.prompt_id} ${provenance.author}`
  );
}

function mark(
  cell: Cell,
  recorded: Map<string, string>,
  room: IRoomModel,
  showPrompt: (promptId: string) => void
): void {
  const provenance = cell.model.getMetadata('copilot_room') as IProvenance | undefined;
  let badge = cell.node.querySelector<HTMLButtonElement>(`:scope > .${BADGE}`);
  if (!vouchedFor(provenance, recorded)) {
    badge?.remove();
    return;
  }
  if (!badge) {
    badge = document.createElement('button');
    badge.className = BADGE;
    cell.node.appendChild(badge);
  }
  const when = new Date(provenance.time * 1000).toLocaleTimeString();
  // Named as the room knows the author; the username (the audit trail's) only in the tooltip.
  const name = nameOf(provenance.author, room);
  badge.textContent = `Copilot · ${name}`;
  const said = `Changed by Copilot for ${name}'s prompt (turn ${provenance.turn}, ${when}).`;
  badge.setAttribute('aria-label', `${said} Show it in the room.`);
  badge.title = `${said} Username: ${provenance.author}. Show it in the room.`;
  badge.onclick = () => showPrompt(provenance.prompt_id);
}

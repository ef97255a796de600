/**
 * Provenance in the notebook itself: every cell the agent created or changed carries
 * `metadata.copilot_room` (prompt, author, turn, tool call), and one it ran carries the same in
 * `copilot_room.ran`; the active notebook shows a small badge on those cells ("Copilot ran" on
 * one it only ran), and the badge leads to the prompt's entry in the room's transcript.
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
  /** The agent's latest run of the cell (notebook_run_cells). */
  ran?: IProvenance;
}

/** Who a notebook tool call the room recorded was for: the room, the prompt, its author by
 * username and by the name that room knows them by. */
export interface IVoucher {
  room: string;
  promptId: string;
  author: string;
  name: string;
}

/**
 * What the rooms this page has shown recorded, by notebook tool call. A room's records stay
 * once learned, so a cell's badge follows its notebook, not the room the panel shows now (a
 * tool call id is the room's own, so one room cannot vouch for another's). What a room recorded
 * is learned while the page shows it: after a reload, until then, its cells carry no badge.
 */
export class Vouchers {
  /** Learn what `room` (its model) recorded; whether anything changed. */
  learn(room: string, model: IRoomModel): boolean {
    let changed = false;
    for (const [call, [promptId, author]] of notebookToolCalls(model)) {
      const voucher = { room, promptId, author, name: nameOf(author, model) };
      if (JSON.stringify(this._calls.get(call)) !== JSON.stringify(voucher)) {
        this._calls.set(call, voucher);
        changed = true;
      }
    }
    return changed;
  }

  /** The record that vouches for a cell's provenance metadata: that notebook tool call, for
   * that prompt, by that prompt's author (anyone who edits a notebook can write the metadata). */
  vouching(provenance: IProvenance | undefined): IVoucher | undefined {
    const voucher = provenance && this._calls.get(provenance.tool_call_id);
    const agrees =
      voucher?.promptId === provenance?.prompt_id && voucher?.author === provenance?.author;
    return agrees ? voucher : undefined;
  }

  private _calls = new Map<string, IVoucher>();
}

/** Keep the badges of every open notebook in step with its cells' metadata and what the rooms
 * the page has shown recorded (`Vouchers`). */
export function trackProvenance(
  notebooks: INotebookTracker,
  rooms: Pick<IRooms, 'current' | 'currentChanged'>,
  showPrompt: (room: string, promptId: string) => void
): void {
  const vouchers = new Vouchers();
  const updates = new Set<() => void>();
  let room = rooms.current;
  const learn = () => {
    if (vouchers.learn(room.name, room.model)) {
      updates.forEach(update => update());
    }
  };
  const listen = (on: boolean) => {
    const how = on ? 'connect' : 'disconnect';
    room.model.entriesChanged[how](learn);
    room.model.changed[how](learn);
  };
  rooms.currentChanged.connect(() => {
    listen(false);
    room = rooms.current;
    listen(true);
    learn();
  });
  listen(true);
  learn();

  const follow = (panel: NotebookPanel) => {
    let frame = 0;
    // After the change, once the notebook has made widgets for new cells.
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        for (const cell of panel.content.widgets) {
          mark(cell, vouchers, showPrompt);
        }
      });
    };
    void panel.context.ready.then(() => {
      update();
      panel.content.model?.contentChanged.connect(update);
      panel.content.model?.cells.changed.connect(update);
      panel.content.modelContentChanged.connect(update);
      updates.add(update);
      panel.disposed.connect(() => updates.delete(update));
    });
  };
  notebooks.forEach(follow);
  notebooks.widgetAdded.connect((_, panel) => follow(panel));
}

/** `tool call id -> [prompt id, its author]` of every notebook tool call the room recorded. */
function notebookToolCalls(room: IRoomModel): Map<string, [string, string]> {
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
  const recorded = new Map<string, [string, string]>();
  for (const [call, prompt] of calls) {
    recorded.set(call, [prompt, authors.get(prompt) ?? '']);
  }
  return recorded;
}

/** The badge sits in the cell's footer, below its outputs: in the flow, so it never covers the
 * cell toolbar of a selected cell, its code or its outputs. */
function mark(
  cell: Cell,
  vouchers: Vouchers,
  showPrompt: (room: string, promptId: string) => void
): void {
  const metadata = cell.model.getMetadata('copilot_room') as IProvenance | undefined;
  const home = cell.node.querySelector<HTMLElement>(':scope > .jp-CellFooter') ?? cell.node;
  let badge = home.querySelector<HTMLButtonElement>(`:scope > .${BADGE}`);
  const changed = vouchers.vouching(metadata);
  const ran = vouchers.vouching(metadata?.ran);
  if (!metadata || !(changed || ran)) {
    badge?.remove();
    return;
  }
  if (!badge) {
    badge = document.createElement('button');
    badge.className = BADGE;
    home.appendChild(badge);
  }
  // Named as the room knows the author; the audit trail keeps the username.
  const said = [
    changed && `Changed by Copilot for ${described(changed, metadata)}.`,
    ran && metadata.ran && `Run by Copilot for ${described(ran, metadata.ran)}.`
  ].filter(Boolean);
  const [voucher, provenance] = changed ? [changed, metadata] : [ran!, metadata.ran!];
  badge.textContent = changed ? `Copilot · ${voucher.name}` : `Copilot ran · ${voucher.name}`;
  badge.setAttribute('aria-label', `${said.join(' ')} Show it in the room.`);
  badge.title = `${said.join(' ')} Click to show it in the room.`;
  badge.onclick = () => showPrompt(voucher.room, provenance.prompt_id);
}

/** "Alice's prompt in the room main (turn 2, 10:04:31)". */
function described(voucher: IVoucher, provenance: IProvenance): string {
  const when = new Date(provenance.time * 1000).toLocaleTimeString();
  return (
    `${voucher.name}'s prompt in the room ${voucher.room} ` + `(turn ${provenance.turn}, ${when})`
  );
}

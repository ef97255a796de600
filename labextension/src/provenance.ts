/**
 * Provenance in the notebook itself: every cell the agent created or changed carries
 * `metadata.copilot_room` (prompt, author, turn, tool call); the active notebook shows a small
 * badge on those cells, and the badge leads to the prompt's entry in the room's transcript.
 */
import { Cell } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

const BADGE = 'jp-CopilotRoom-provenance';

interface IProvenance {
  prompt_id: string;
  author: string;
  turn: number;
  tool_call_id: string;
  time: number;
}

/** Keep the badges of every open notebook in step with its cells' metadata. */
export function trackProvenance(
  notebooks: INotebookTracker,
  showPrompt: (promptId: string) => void
): void {
  const follow = (panel: NotebookPanel) => {
    let frame = 0;
    // After the change, once the notebook has made widgets for new cells.
    const update = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => {
        for (const cell of panel.content.widgets) {
          mark(cell, showPrompt);
        }
      });
    };
    void panel.context.ready.then(() => {
      update();
      panel.content.model?.contentChanged.connect(update);
      panel.content.model?.cells.changed.connect(update);
      panel.content.modelContentChanged.connect(update);
    });
  };
  notebooks.forEach(follow);
  notebooks.widgetAdded.connect((_, panel) => follow(panel));
}

function mark(cell: Cell, showPrompt: (promptId: string) => void): void {
  const provenance = cell.model.getMetadata('copilot_room') as IProvenance | undefined;
  let badge = cell.node.querySelector<HTMLButtonElement>(`:scope > .${BADGE}`);
  if (!provenance) {
    badge?.remove();
    return;
  }
  if (!badge) {
    badge = document.createElement('button');
    badge.className = BADGE;
    cell.node.appendChild(badge);
  }
  const when = new Date(provenance.time * 1000).toLocaleTimeString();
  badge.textContent = `Copilot · ${provenance.author}`;
  badge.title = `Changed by Copilot for ${provenance.author}'s prompt (turn ${provenance.turn}, ${when}). Show it in the room.`;
  badge.setAttribute('aria-label', badge.title);
  badge.onclick = () => showPrompt(provenance.prompt_id);
}

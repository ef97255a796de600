/** The sidebar widget that hosts the room view. */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { IRoomClient } from './api';
import { INeed } from './attention';
import { Room } from './components/room';
import { IEarlierHistory } from './history';
import { IRoomModel } from './model';
import { roomRendermime } from './sanitize';

export class RoomPanel extends ReactWidget {
  constructor(options: {
    model: IRoomModel;
    client: IRoomClient;
    rendermime: IRenderMimeRegistry;
    history?: IEarlierHistory;
    /** "Export…" (the `copilot-room:export` command). */
    onExport?: () => void;
  }) {
    super();
    this.model = options.model;
    this._client = options.client;
    this._history = options.history ?? null;
    this._onExport = options.onExport;
    // Agent output renders only through the agent-output sanitizer (sanitize.ts).
    this._rendermime = roomRendermime(options.rendermime);
    this.addClass('jp-CopilotRoom');
  }

  readonly model: IRoomModel;

  focusPrompt(): void {
    this._input.current?.focus();
  }

  /** Scroll the transcript to an entry (a prompt, by its id) and flash it. */
  showEntry(entryId: string): void {
    const entry = this.node.querySelector<HTMLElement>(`[data-entry-id="${CSS.escape(entryId)}"]`);
    if (entry) {
      entry.scrollIntoView({ block: 'center' });
      entry.classList.add('jp-mod-flash');
      window.setTimeout(() => entry.classList.remove('jp-mod-flash'), 1500);
    }
  }

  /** Bring what waits on the reader into view: their card, or (for hosts) the person at the
   * door. Scrolls only the panel's own scrolling boxes; moves the focus there only when the
   * reader asked (`focus`), never from under someone typing elsewhere. */
  showNeed(need: INeed, focus: boolean, frames = 30): void {
    const attribute = need.kind === 'card' ? 'data-card-id' : 'data-admission';
    const target = this.node.querySelector<HTMLElement>(`[${attribute}="${CSS.escape(need.id)}"]`);
    if (!target && frames > 0) {
      // The room may not have drawn it yet (React renders after the model's signal).
      requestAnimationFrame(() => this.showNeed(need, focus, frames - 1));
    } else if (target) {
      reveal(target, this.node);
      if (focus) {
        target.focus({ preventScroll: true });
      }
    }
  }

  protected render(): JSX.Element {
    return (
      <Room
        model={this.model}
        client={this._client}
        rendermime={this._rendermime}
        inputRef={this._input}
        history={this._history}
        onExport={this._onExport}
      />
    );
  }

  private _client: IRoomClient;
  private _history: IEarlierHistory | null;
  private _onExport?: () => void;
  private _rendermime: IRenderMimeRegistry;
  private _input = React.createRef<HTMLTextAreaElement>();
}

/** Scroll each scrolling box between `element` and `top` just enough to show `element`. */
function reveal(element: HTMLElement, top: HTMLElement): void {
  for (let box = element.parentElement; box && top.contains(box); box = box.parentElement) {
    if (box.scrollHeight > box.clientHeight && getComputedStyle(box).overflowY !== 'visible') {
      const inner = element.getBoundingClientRect();
      const outer = box.getBoundingClientRect();
      if (inner.top < outer.top) {
        box.scrollTop -= outer.top - inner.top;
      } else if (inner.bottom > outer.bottom) {
        box.scrollTop += Math.min(inner.bottom - outer.bottom, inner.top - outer.top);
      }
    }
  }
}

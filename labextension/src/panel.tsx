/** The sidebar widget that hosts the room view. */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { IRoomClient } from './api';
import { Room } from './components/room';
import { IRoomModel } from './model';
import { roomRendermime } from './sanitize';

export class RoomPanel extends ReactWidget {
  constructor(options: {
    model: IRoomModel;
    client: IRoomClient;
    rendermime: IRenderMimeRegistry;
  }) {
    super();
    this.model = options.model;
    this._client = options.client;
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

  protected render(): JSX.Element {
    return (
      <Room
        model={this.model}
        client={this._client}
        rendermime={this._rendermime}
        inputRef={this._input}
      />
    );
  }

  private _client: IRoomClient;
  private _rendermime: IRenderMimeRegistry;
  private _input = React.createRef<HTMLTextAreaElement>();
}

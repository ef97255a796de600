/** The sidebar widget that hosts the room view. */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { Room } from './components/room';
import { RoomModel } from './model';

export class RoomPanel extends ReactWidget {
  constructor(
    readonly model: RoomModel,
    private readonly _rendermime: IRenderMimeRegistry
  ) {
    super();
    this.addClass('jp-CopilotRoom');
  }

  focusPrompt(): void {
    this._input.current?.focus();
  }

  /** Scroll the transcript to an entry (a prompt, by its id) and flash it. */
  showEntry(entryId: string): void {
    const entry = this.node.querySelector<HTMLElement>(
      `[data-entry-id="${CSS.escape(entryId)}"]`
    );
    if (entry) {
      entry.scrollIntoView({ block: 'center' });
      entry.classList.add('jp-mod-flash');
      window.setTimeout(() => entry.classList.remove('jp-mod-flash'), 1500);
    }
  }

  protected render(): JSX.Element {
    return <Room model={this.model} rendermime={this._rendermime} inputRef={this._input} />;
  }

  private _input = React.createRef<HTMLTextAreaElement>();
}

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

  protected render(): JSX.Element {
    return <Room model={this.model} rendermime={this._rendermime} inputRef={this._input} />;
  }

  private _input = React.createRef<HTMLTextAreaElement>();
}

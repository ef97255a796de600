/**
 * The room in a notebook output: the panel's own components in a compact column of a fixed
 * height that fits a notebook's width. The page's current room (../rooms.ts), so every
 * reader sees it with their own role: a viewer gets no prompt box (only "Say to the room" while
 * hosts let viewers chat), someone outside the room the door. Both the ipywidgets view and the
 * saved-output renderer show this.
 */
import { ReactWidget } from '@jupyterlab/ui-components';
import React, { useMemo, useRef } from 'react';

import { Cards } from '../components/cards';
import { Door } from '../components/door';
import { RoomHeader } from '../components/header';
import { useSignal } from '../components/hooks';
import { PromptBox } from '../components/promptbox';
import { QuoteContext } from '../components/quote';
import { RoomClientContext } from '../components/roomclient';
import { Queue } from '../components/queue';
import { Transcript } from '../components/transcript';
import { isAdmitted, mayChat, maySubmit, whyNoPrompt } from '../policy';
import { QuoteBox } from '../quote';
import { IRoom } from '../room';
import { IRooms } from '../rooms';
import { IViewOptions } from './options';

export function RoomOutput(props: { room: IRoom; options: IViewOptions }): JSX.Element {
  const { room, options } = props;
  const { model, client } = room;
  useSignal(model.changed);
  const input = useRef<HTMLTextAreaElement>(null);
  const quotes = useMemo(() => new QuoteBox(), []);
  const me = model.me;
  const show = new Set(options.parts);
  // Keys typed here are the room's (Enter sends, Escape closes a picker), never the notebook's
  // shortcuts (Shift+Enter would run a cell, Escape leave edit mode).
  const frame = (children: React.ReactNode, fixed: boolean) => (
    <div
      className="jp-CopilotRoom jp-CopilotRoom-widget"
      data-lm-suppress-shortcuts="true"
      style={fixed ? { height: options.height } : undefined}
    >
      <RoomClientContext.Provider value={client}>
        <QuoteContext.Provider value={show.has('prompt') ? quotes : null}>
          {children}
        </QuoteContext.Provider>
      </RoomClientContext.Provider>
    </div>
  );
  if (me && !isAdmitted(me)) {
    return frame(
      <Door me={me} client={client} claimed={false} onClaimed={() => undefined} />,
      false
    );
  }
  return frame(
    <div className="jp-CopilotRoom-room">
      <RoomHeader model={model} client={client} />
      {show.has('transcript') && (
        <Transcript model={model} rendermime={room.rendermime} history={room.history} />
      )}
      {(show.has('cards') || show.has('queue')) && (
        <div className="jp-CopilotRoom-tray">
          <div className="jp-CopilotRoom-trayBody">
            {show.has('cards') && <Cards model={model} client={client} />}
            {show.has('queue') && <Queue model={model} client={client} />}
          </div>
        </div>
      )}
      {show.has('prompt') &&
        me &&
        (maySubmit(me) || mayChat(me) ? (
          <PromptBox model={model} client={client} inputRef={input} />
        ) : (
          <div className="jp-CopilotRoom-reason jp-CopilotRoom-widgetReason">{whyNoPrompt(me)}</div>
        ))}
    </div>,
    show.has('transcript')
  );
}

/** A Lumino widget showing `RoomOutput`, its options changed in place (no new React tree); a
 * switch of the page's room shows the new room afresh. */
export class RoomOutputWidget extends ReactWidget {
  constructor(
    readonly rooms: IRooms,
    options: IViewOptions
  ) {
    super();
    this._options = options;
    this.addClass('jp-CopilotRoom-output');
    rooms.currentChanged.connect(this.update, this);
  }

  dispose(): void {
    this.rooms.currentChanged.disconnect(this.update, this);
    super.dispose();
  }

  get options(): IViewOptions {
    return this._options;
  }

  set options(options: IViewOptions) {
    this._options = options;
    this.update();
  }

  protected render(): JSX.Element {
    const room = this.rooms.current;
    return <RoomOutput key={room.name} room={room} options={this._options} />;
  }

  private _options: IViewOptions;
}

/** The whole panel: status, waiting screen, transcript, cards, queue, people, prompt box. */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React, { useMemo, useState } from 'react';

import { IRoomClient } from '../api';
import { IEarlierHistory } from '../history';
import { IRoomModel } from '../model';
import { IPromptDraft } from '../room';
import { isAdmitted, isAtTheDoor } from '../policy';
import { QuoteBox } from '../quote';
import { Cards } from './cards';
import { claimedByLink, Door, HOST_CLAIMED } from './door';
import { RoomHeader } from './header';
import { useSignal } from './hooks';
import { People } from './people';
import { PromptBox } from './promptbox';
import { Queue } from './queue';
import { QuoteContext } from './quote';
import { Transcript } from './transcript';

export function Room(props: {
  model: IRoomModel;
  client: IRoomClient;
  rendermime: IRenderMimeRegistry;
  inputRef: React.RefObject<HTMLTextAreaElement>;
  history?: IEarlierHistory | null;
  onExport?: () => void;
  /** The room switcher (the panel's), in place of the header's title. */
  switcher?: React.ReactNode;
  /** What the reader typed here and did not send yet (kept per room). */
  draft?: IPromptDraft;
}): JSX.Element {
  const { model, client, rendermime, inputRef, history } = props;
  useSignal(model.changed);
  const [claimed, setClaimed] = useState(claimedByLink);
  const quotes = useMemo(() => new QuoteBox(), []);
  const me = model.me;
  if (me && !isAdmitted(me.role)) {
    return (
      <>
        {props.switcher && <div className="jp-CopilotRoom-switcherBar">{props.switcher}</div>}
        <Door me={me} client={client} claimed={claimed} onClaimed={() => setClaimed(true)} />
      </>
    );
  }
  const header = (
    <RoomHeader model={model} client={client} onExport={props.onExport} switcher={props.switcher} />
  );
  if (!me) {
    // Until the room says who the reader is (a room just switched to), nothing that asks the
    // room for more: someone at its door may ask nothing.
    return <div className="jp-CopilotRoom-room">{header}</div>;
  }
  const people = model.participants;
  const online = people.filter(p => p.online).length;
  const someoneWaits = people.some(p => isAtTheDoor(p.role));
  return (
    <QuoteContext.Provider value={quotes}>
      <div className="jp-CopilotRoom-room">
        {header}
        {claimed && me?.role === 'host' && (
          <div className="jp-CopilotRoom-claimed" role="status">
            <span>
              {HOST_CLAIMED} You let people in, answer any card and change the room&apos;s settings.
            </span>
            <button
              className="jp-mod-styled jp-CopilotRoom-small"
              aria-label="Dismiss this message"
              onClick={() => setClaimed(false)}
            >
              ×
            </button>
          </div>
        )}
        <Transcript model={model} rendermime={rendermime} history={history} />
        {/* The tray scrolls on its own when cards, the queue and people are taller than it may
          be, so the transcript keeps some room and the prompt box stays in reach. */}
        <div className="jp-CopilotRoom-tray">
          <Cards model={model} client={client} />
          <Queue model={model} client={client} />
          <details className="jp-CopilotRoom-peopleBox">
            <summary>
              People ({online} online{someoneWaits ? ', someone is waiting' : ''})
            </summary>
            <People model={model} client={client} />
          </details>
        </div>
        <PromptBox model={model} client={client} inputRef={inputRef} draft={props.draft} />
      </div>
    </QuoteContext.Provider>
  );
}

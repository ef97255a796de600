/** The whole panel: status, waiting screen, transcript, cards, queue, people, prompt box. */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React, { useMemo, useState } from 'react';

import { IRoomClient } from '../api';
import { IEarlierHistory } from '../history';
import { IRoomModel } from '../model';
import { IPromptDraft } from '../room';
import { isAdmitted, isHost } from '../policy';
import { QuoteBox } from '../quote';
import { claimedByLink, Door, HOST_CLAIMED } from './door';
import { RoomHeader } from './header';
import { useSignal } from './hooks';
import { LinkChatCard } from './linkchat';
import { PromptBox } from './promptbox';
import { QuoteContext } from './quote';
import { RoomClientContext } from './roomclient';
import { SignInCard } from './signin';
import { Transcript } from './transcript';
import { Tray } from './tray';

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
  /** The card with a code that links the reader's chat account ("Link a Slack Account…"),
   * while they asked for it. */
  linkChat?: { service: string; request: number; onClose: () => void } | null;
}): JSX.Element {
  const { model, client, rendermime, inputRef, history } = props;
  useSignal(model.changed);
  const [claimed, setClaimed] = useState(claimedByLink);
  const quotes = useMemo(() => new QuoteBox(), []);
  const me = model.me;
  if (me && !isAdmitted(me)) {
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
  return (
    <QuoteContext.Provider value={quotes}>
      <RoomClientContext.Provider value={client}>
        <div className="jp-CopilotRoom-room">
          {header}
          <Transcript model={model} rendermime={rendermime} history={history} />
          <Tray model={model} client={client}>
            {props.linkChat && (
              <LinkChatCard
                key={`${props.linkChat.service}:${props.linkChat.request}`}
                service={props.linkChat.service}
                request={props.linkChat.request}
                client={client}
                who={me.display_name || me.username}
                onClose={props.linkChat.onClose}
              />
            )}
            {claimed && isHost(me) && (
              <div className="jp-CopilotRoom-claimed" role="status">
                <span>
                  {HOST_CLAIMED} You let people in, answer any card and change the room&apos;s
                  settings.
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
            <SignInCard model={model} />
          </Tray>
          <PromptBox model={model} client={client} inputRef={inputRef} draft={props.draft} />
        </div>
      </RoomClientContext.Provider>
    </QuoteContext.Provider>
  );
}

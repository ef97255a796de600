/** "Link a Slack Account…" (the `copilot-room:link-chat-account` command): a card in the tray
 * with a one-time code from the server (`POST link-code`), large enough to read across a room
 * and selected whole with one click, the exact message to send to the room's bot, and for how
 * long it works. The chat user who sends it only asks: the card shows each ask ("Slack user
 * @mallory asks to act as you") with Allow and Deny, and the accounts linked, each with Remove
 * (`GET chat-links`, looked at every `LOOK_EVERY` ms while the card is open). Only the person
 * who asked sees it: it is never in the shared document. */
import { Clipboard } from '@jupyterlab/apputils';
import React, { useCallback, useEffect, useState } from 'react';

import { IChatLinks, ILinkCode, IRoomClient } from '../api';
import { askText, expiredText, linkCardText, linkedText, serviceName } from '../chats';
import { Refusal, useAction } from './action';

/** How often an open card looks for asks (the person just sent the code: a few seconds). */
const LOOK_EVERY = 2000;
/** An ask's buttons: its decision, the label, JupyterLab's style for it. */
const ANSWERS: ReadonlyArray<['allow' | 'deny', string, string]> = [
  ['allow', 'Allow', 'jp-mod-accept'],
  ['deny', 'Deny', 'jp-mod-reject']
];

export function LinkChatCard(props: {
  service: string;
  client: Pick<IRoomClient, 'linkCode' | 'chatLinks' | 'answerLinkAsk' | 'unlinkChat'>;
  /** The reader's name as the room shows it (a guest's username is hex), whom the linked
   * account acts as. */
  who?: string | null;
  onClose: () => void;
  /** Which request of the reader's this card answers (its `data-request`). */
  request?: number;
}): JSX.Element {
  const { service, client, who, onClose } = props;
  const action = useAction();
  const [code, setCode] = useState<ILinkCode | null>(null);
  const [expired, setExpired] = useState(false);
  const [copied, setCopied] = useState(false);
  const [links, setLinks] = useState<IChatLinks>({ links: [], asks: [] });
  const { run } = action;
  const look = useCallback(() => {
    client.chatLinks().then(setLinks, () => undefined); // the next look tries again
  }, [client]);
  useEffect(() => {
    look();
    const timer = setInterval(look, LOOK_EVERY);
    return () => clearInterval(timer);
  }, [look]);
  const answer = (askId: string, decision: 'allow' | 'deny') =>
    void run(() => client.answerLinkAsk(askId, decision)).then(look);
  const unlink = (service: string, user: string) =>
    void run(() => client.unlinkChat(service, user)).then(look);
  const fetchCode = useCallback(() => {
    setCopied(false);
    void run(() => client.linkCode()).then(fresh => {
      if (fresh) {
        setCode(fresh);
        setExpired(false);
      }
    });
  }, [client, run]);
  useEffect(() => fetchCode(), [fetchCode]);
  useEffect(() => {
    if (!code || !(code.expires_in > 0)) {
      return;
    }
    const timer = setTimeout(() => setExpired(true), code.expires_in * 1000);
    return () => clearTimeout(timer);
  }, [code]);
  useEffect(() => {
    if (!copied) {
      return;
    }
    const timer = setTimeout(() => setCopied(false), 3000);
    return () => clearTimeout(timer);
  }, [copied]);

  const name = serviceName(service);
  const text = code ? linkCardText(service, code.code, code.expires_in, who) : null;
  return (
    <section
      className="jp-CopilotRoom-linkChat"
      data-service={service}
      data-request={props.request}
      data-expired={expired || undefined}
      aria-label={`Link your ${name} account`}
      tabIndex={-1}
    >
      <strong className="jp-CopilotRoom-linkChatTitle">{`Link your ${name} account`}</strong>
      {/* An ask waits on the reader: first, above the code it spent. */}
      {links.asks.map(ask => (
        <div className="jp-CopilotRoom-linkAsk" key={ask.id} role="group" aria-label={askText(ask)}>
          <p className="jp-CopilotRoom-linkAskText">{askText(ask)}</p>
          <div className="jp-CopilotRoom-linkChatActions">
            {ANSWERS.map(([decision, label, style]) => (
              <button
                key={decision}
                type="button"
                className={`jp-mod-styled ${style} jp-CopilotRoom-small`}
                disabled={action.busy}
                onClick={() => answer(ask.id, decision)}
              >
                {label}
              </button>
            ))}
          </div>
        </div>
      ))}
      {!text ? (
        <p className="jp-CopilotRoom-linkChatNote" role="status">
          {action.busy ? 'Getting a code…' : 'No code: try again.'}
        </p>
      ) : expired ? (
        <p className="jp-CopilotRoom-linkChatExpired" role="status">
          {expiredText(service)}
        </p>
      ) : (
        <>
          <div className="jp-CopilotRoom-linkCode" title="Your one-time code (click to select it)">
            {code?.code}
          </div>
          <p className="jp-CopilotRoom-linkChatSend">
            Send this message: <code className="jp-CopilotRoom-linkMessage">{text.message}</code>
          </p>
          <p className="jp-CopilotRoom-linkChatWhere">{text.where}</p>
          <p className="jp-CopilotRoom-linkChatNote">{text.after}</p>
        </>
      )}
      {links.links.length > 0 && (
        <ul className="jp-CopilotRoom-linkedAccounts" aria-label="Your linked accounts">
          {links.links.map(link => (
            <li key={`${link.service}:${link.user}`}>
              <span>{linkedText(link)}</span>
              <button
                type="button"
                className="jp-mod-styled jp-CopilotRoom-small"
                disabled={action.busy}
                title={`${serviceName(link.service)} user ${link.name} no longer acts as you`}
                onClick={() => unlink(link.service, link.user)}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="jp-CopilotRoom-linkChatActions">
        {text && !expired && (
          <button
            type="button"
            className="jp-mod-styled jp-mod-accept jp-CopilotRoom-small"
            aria-label={copied ? 'Copied' : `Copy the message: ${text.message}`}
            title={`Copy the message to send: ${text.message}`}
            onClick={() => {
              Clipboard.copyToSystem(text.message);
              setCopied(true);
            }}
          >
            {copied ? 'Copied' : 'Copy'}
          </button>
        )}
        <button
          type="button"
          className="jp-mod-styled jp-CopilotRoom-small"
          disabled={action.busy}
          title="A new code; the one shown stops working"
          onClick={fetchCode}
        >
          New code
        </button>
        <button
          type="button"
          className="jp-mod-styled jp-CopilotRoom-small"
          title="Close this card (the code works until it expires)"
          onClick={onClose}
        >
          Done
        </button>
      </div>
      <Refusal action={action} />
    </section>
  );
}

/** "Link a Slack Account…" (the `copilot-room:link-chat-account` command): a card in the tray
 * with a one-time code from the server (`POST link-code`), large enough to read across a room
 * and selected whole with one click, the exact message to send to the room's bot, and for how
 * long it works. Only the person who asked sees it: it is never in the shared document. */
import { Clipboard } from '@jupyterlab/apputils';
import React, { useCallback, useEffect, useState } from 'react';

import { ILinkCode, IRoomClient } from '../api';
import { expiredText, linkCardText, serviceName } from '../chats';
import { Refusal, useAction } from './action';

export function LinkChatCard(props: {
  service: string;
  client: Pick<IRoomClient, 'linkCode'>;
  /** The reader's username, which the linked account acts as. */
  username?: string | null;
  onClose: () => void;
  /** Which request of the reader's this card answers (its `data-request`). */
  request?: number;
}): JSX.Element {
  const { service, client, username, onClose } = props;
  const action = useAction();
  const [code, setCode] = useState<ILinkCode | null>(null);
  const [expired, setExpired] = useState(false);
  const [copied, setCopied] = useState(false);
  const { run } = action;
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
  const text = code ? linkCardText(service, code.code, code.expires_in, username) : null;
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

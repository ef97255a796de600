/**
 * What someone outside the room sees: waiting for a host, or turned away. While the room has no
 * host yet (the server says so in `me.can`), whoever started the server claims it here, in the
 * tab already open, with the secret its start named.
 */
import { Notification } from '@jupyterlab/apputils';
import { PageConfig } from '@jupyterlab/coreutils';
import React from 'react';

import { IRoomClient } from '../api';
import { claimSecret, isAtTheDoor, isHost, mayClaimHost } from '../policy';
import { IMe } from '../types';
import { Refusal, useAction } from './action';
import { MyName } from './myname';
import { OneLineForm } from './oneline';

export const HOST_CLAIMED = 'You are the host of this room.';

/** The claim link just made this browser the host (`handlers.ClaimHandler` left a note that the
 * panel reads once). */
export function claimedByLink(): boolean {
  const note = 'copilot-room-claimed';
  if (!document.cookie.split('; ').some(cookie => cookie === `${note}=1`)) {
    return false;
  }
  const base = new URL(PageConfig.getBaseUrl()).pathname;
  document.cookie = `${note}=; path=${base}; max-age=0; samesite=strict`;
  return true;
}

export function Door(props: {
  me: IMe;
  client: IRoomClient;
  /** This tab just claimed the room; the room opens at the next look (in a second or two). */
  claimed: boolean;
  onClaimed: () => void;
}): JSX.Element {
  const { me, client, claimed, onClaimed } = props;
  const claimable = mayClaimHost(me) && !claimed;
  const name = me.display_name || me.username;
  return (
    <div className="jp-CopilotRoom-door">
      <div role="status">
        {claimed ? (
          <>
            <h2>{HOST_CLAIMED}</h2>
            <p>Opening the room…</p>
          </>
        ) : !isAtTheDoor(me) ? (
          <>
            <h2>You are not in this room</h2>
            <p>A host turned you away or removed you. Ask a host if that was a mistake.</p>
          </>
        ) : claimable ? (
          <>
            <h2>This room has no host yet</h2>
            <p>
              Whoever started this Jupyter server becomes its host, then lets people in. This page
              updates by itself.
            </p>
          </>
        ) : (
          <>
            <h2>Waiting to join the room</h2>
            <p>A host has been asked to let you in. This page updates by itself.</p>
            <p>
              The hosts see you as <strong>{name}</strong>.
            </p>
          </>
        )}
      </div>
      {isAtTheDoor(me) && !claimable && !claimed && <DoorName name={name} client={client} />}
      {claimable && <ClaimForm client={client} onClaimed={onClaimed} />}
    </div>
  );
}

/** Who knocks, in a name the hosts can tell apart from another guest's. */
function DoorName(props: { name: string; client: IRoomClient }): JSX.Element {
  const action = useAction();
  return (
    <>
      <MyName current={props.name} client={props.client} action={action} />
      <Refusal action={action} />
    </>
  );
}

function ClaimForm(props: { client: IRoomClient; onClaimed: () => void }): JSX.Element {
  const { client, onClaimed } = props;
  const action = useAction();
  const claim = async (secret: string): Promise<void> => {
    const status = await action.run(() => client.claimHost(claimSecret(secret)));
    if (isHost(status?.me)) {
      Notification.success(HOST_CLAIMED, { autoClose: 5000 });
      onClaimed();
    }
  };
  return (
    <section className="jp-CopilotRoom-claim" role="form" aria-label="Claim the room as its host">
      <h3>I started this server</h3>
      <p className="jp-CopilotRoom-note">
        Its log names a page (<code>copilot-room-…-claim.html</code>) that holds the room&apos;s
        host secret. Paste the secret (or the whole link) here to become the host in this tab.
      </p>
      <OneLineForm
        className="jp-CopilotRoom-claimRow"
        field={{
          type: 'password',
          autoComplete: 'off',
          spellCheck: false,
          placeholder: 'Host secret',
          'aria-label': "Host secret from the server's start"
        }}
        submit="Become the host"
        small={false}
        busy={action.busy}
        onSubmit={secret => void claim(secret)}
      />
      <Refusal action={action} />
    </section>
  );
}

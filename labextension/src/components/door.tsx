/** What someone outside the room sees: waiting for a host, or turned away. */
import React from 'react';

import { isAtTheDoor } from '../policy';
import { IMe } from '../types';

export function Door(props: { me: IMe }): JSX.Element {
  const { me } = props;
  return (
    <div className="jp-CopilotRoom-door" role="status">
      {isAtTheDoor(me.role) ? (
        <>
          <h2>Waiting to join the room</h2>
          <p>A host has been asked to let you in. This page updates by itself.</p>
          {!me.verified && (
            <p className="jp-CopilotRoom-note">
              Did you start this Jupyter server? Then open the one-time host link it printed in its
              log (<code>…/copilot-room/claim?secret=…</code>) to become the room&apos;s host.
            </p>
          )}
        </>
      ) : (
        <>
          <h2>You are not in this room</h2>
          <p>A host turned you away or removed you. Ask a host if that was a mistake.</p>
        </>
      )}
    </div>
  );
}

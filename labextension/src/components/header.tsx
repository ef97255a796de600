/** The panel's top line: the agent and what it is doing, whose turn it is, and the connection. */
import React from 'react';

import { IRoomModel } from '../model';
import { agentStateLabel } from '../policy';

export function RoomHeader(props: { model: IRoomModel }): JSX.Element {
  const { meta, connection } = props.model;
  return (
    <>
      <header className="jp-CopilotRoom-header">
        <div className="jp-CopilotRoom-headerLine">
          <span className="jp-CopilotRoom-title">Copilot room</span>
          <span
            className="jp-CopilotRoom-state"
            data-state={meta.state}
            title={meta.agent_detail || undefined}
          >
            {agentStateLabel(meta.state)}
          </span>
        </div>
        {(meta.agent || meta.turn_owner) && (
          <div className="jp-CopilotRoom-headerLine">
            <span className="jp-CopilotRoom-agent" title={meta.agent}>
              {meta.agent}
            </span>
            {meta.turn_owner && (
              <span className="jp-CopilotRoom-turn">{meta.turn_owner}&apos;s turn</span>
            )}
          </div>
        )}
      </header>
      {connection !== 'online' && (
        <div className="jp-CopilotRoom-offline" role="alert">
          {connection === 'connecting'
            ? 'Connecting to the room…'
            : 'Offline: reconnecting to the room. What you see may be out of date.'}
        </div>
      )}
      {meta.state === 'unavailable' && meta.agent_detail && (
        <div className="jp-CopilotRoom-error" role="alert">
          {meta.agent_detail}
        </div>
      )}
    </>
  );
}

/** The panel's top line: the agent and what it is doing, whose turn it is, and the connection. */
import React from 'react';

import { IRoomClient } from '../api';
import { IRoomModel, turnCards } from '../model';
import { turnStateLabel } from '../policy';
import { Name } from './person';
import { AgentUnavailable } from './unavailable';

export function RoomHeader(props: { model: IRoomModel; client: IRoomClient }): JSX.Element {
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
            {turnStateLabel(props.model.meta.state, turnCards(props.model))}
          </span>
        </div>
        {(meta.agent || meta.turn_owner || meta.kernel_state) && (
          <div className="jp-CopilotRoom-headerLine">
            <span className="jp-CopilotRoom-agent" title={meta.agent}>
              {meta.agent}
            </span>
            {meta.kernel_state && meta.kernel_notebook && (
              <span
                className="jp-CopilotRoom-kernel"
                data-kernel-state={meta.kernel_state}
                title={`The kernel of ${meta.kernel_notebook}, where the agent runs cells`}
              >
                Kernel: {meta.kernel_state}
              </span>
            )}
            {meta.turn_owner && (
              <span className="jp-CopilotRoom-turn">
                <Name username={meta.turn_owner} model={props.model} />
                &apos;s turn
              </span>
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
      <AgentUnavailable model={props.model} client={props.client} />
    </>
  );
}

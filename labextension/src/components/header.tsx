/** The panel's top line: the agent and what it is doing, whose turn it is, and the connection. */
import React from 'react';

import { IRoomClient } from '../api';
import { IRoomModel } from '../model';
import { agentStateLabel } from '../policy';
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
            {stateLabel(props.model)}
          </span>
        </div>
        {(meta.agent || meta.turn_owner) && (
          <div className="jp-CopilotRoom-headerLine">
            <span className="jp-CopilotRoom-agent" title={meta.agent}>
              {meta.agent}
            </span>
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

/** The agent's state in words; `waiting` says on what: an answer to a question, or an approval. */
function stateLabel(model: IRoomModel): string {
  const { state, turn_prompt } = model.meta;
  if (state === 'waiting') {
    const open = model.approvals.filter(card => card.prompt_id === turn_prompt);
    if (open.length > 0 && open.every(card => card.kind === 'question')) {
      return 'waiting for an answer';
    }
  }
  return agentStateLabel(state);
}

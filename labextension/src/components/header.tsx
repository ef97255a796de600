/** The panel's top line: the agent and what it is doing, whose turn it is, the outside services
 * (fronts) that are not well, and the connection; for hosts, the model of the next turns to
 * switch when the room offers several. */
import { settingsIcon } from '@jupyterlab/ui-components';
import React, { useEffect, useState } from 'react';

import { IRoomClient } from '../api';
import { IRoomModel, turnCards } from '../model';
import { mayChooseModel, mayEditSettings, mayExport, turnStateLabel } from '../policy';
import { Refusal, useAction } from './action';
import { FrontStatus, unwellFronts } from './fronts';
import { Name } from './person';
import { showRoomSettings } from './settings';
import { CopilotSeat } from './signin';
import { AgentHeld } from './held';
import { ThreadList } from './threads';
import { SeatQuota } from './usage';
import { AgentUnavailable } from './unavailable';

export function RoomHeader(props: {
  model: IRoomModel;
  client: IRoomClient;
  onExport?: () => void;
  /** Shown in place of the title (the panel's room switcher). */
  switcher?: React.ReactNode;
}): JSX.Element {
  const { meta, connection } = props.model;
  return (
    <>
      <header className="jp-CopilotRoom-header">
        <div className="jp-CopilotRoom-headerLine">
          {props.switcher ?? <span className="jp-CopilotRoom-title">Copilot room</span>}
          <span
            className="jp-CopilotRoom-state"
            data-state={meta.state}
            title={meta.agent_detail || undefined}
          >
            {turnStateLabel(props.model.meta.state, turnCards(props.model))}
          </span>
          {props.onExport && mayExport(props.model.me) && (
            <button
              type="button"
              className="jp-mod-styled jp-CopilotRoom-small jp-CopilotRoom-export"
              aria-label="Export the transcript…"
              title="Export the transcript as a notebook, Markdown or JSONL"
              onClick={props.onExport}
            >
              Export…
            </button>
          )}
          {mayEditSettings(props.model.me) && (
            <button
              type="button"
              className="jp-mod-styled jp-CopilotRoom-small jp-CopilotRoom-settingsButton"
              aria-label="Room settings…"
              title="Room settings: who gets in, what the agent may do, how long things wait"
              onClick={() => showRoomSettings(props.client, meta.agents ?? [])}
            >
              <settingsIcon.react tag="span" className="jp-CopilotRoom-settingsIcon" />
            </button>
          )}
        </div>
        {(meta.agent || meta.turn_owner || meta.kernel_state || unwellFronts(meta).length > 0) && (
          <div className="jp-CopilotRoom-headerLine">
            <span
              className="jp-CopilotRoom-agent"
              title={meta.agent_source ? `${meta.agent} (${meta.agent_source})` : meta.agent}
            >
              {meta.agent}
            </span>
            <ModelSwitch model={props.model} client={props.client} />
            <CopilotSeat model={props.model} />
            <SeatQuota model={props.model} />
            {meta.kernel_state && meta.kernel_notebook && (
              <span
                className="jp-CopilotRoom-kernel"
                data-kernel-state={meta.kernel_state}
                title={`The kernel of ${meta.kernel_notebook}, where the agent runs cells`}
              >
                Kernel: {meta.kernel_state}
              </span>
            )}
            <FrontStatus model={props.model} />
            {meta.turn_owner && (
              <span className="jp-CopilotRoom-turn">
                <Name username={meta.turn_owner} model={props.model} />
                &apos;s turn
              </span>
            )}
          </div>
        )}
        <ThreadList model={props.model} />
      </header>
      {connection !== 'online' && (
        <div className="jp-CopilotRoom-offline" role="alert">
          {connection === 'connecting'
            ? 'Connecting to the room…'
            : 'Offline: reconnecting to the room. What you see may be out of date.'}
        </div>
      )}
      <AgentUnavailable model={props.model} client={props.client} />
      <AgentHeld model={props.model} />
    </>
  );
}

/** Hosts switch the model that answers the next turns (the room records who did); shown only
 * when the room offers more than one. */
function ModelSwitch(props: { model: IRoomModel; client: IRoomClient }): JSX.Element | null {
  const { model, client } = props;
  const allowed = mayChooseModel(model.me);
  const label = model.meta.agent;
  const [models, setModels] = useState<readonly string[]>([]);
  const action = useAction();
  useEffect(() => {
    if (!allowed) {
      return;
    }
    let live = true;
    client.model().then(
      choice => live && setModels(choice.models),
      () => live && setModels([])
    );
    return () => {
      live = false;
    };
  }, [allowed, label, client]);
  if (!allowed || models.length < 2) {
    return null;
  }
  return (
    <>
      <select
        className="jp-mod-styled jp-CopilotRoom-modelSwitch"
        aria-label="Model for the next turns"
        title="Switch the model that answers the next turns"
        value={model.meta.model ?? ''}
        disabled={action.busy}
        onChange={event => {
          const chosen = event.target.value;
          void action.run(() => client.chooseModel(chosen));
        }}
      >
        {models.map(name => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <Refusal action={action} />
    </>
  );
}

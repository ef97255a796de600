/** The status-bar item: what the agent is doing, at a glance, from anywhere in JupyterLab. */
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { useSignal } from './components/hooks';
import { STATE_LABELS } from './components/room';
import { RoomModel } from './model';

function AgentState(props: { model: RoomModel; onClick: () => void }): JSX.Element {
  useSignal(props.model.changed);
  const state = props.model.meta.state ?? '';
  const offline = props.model.connection !== 'online';
  return (
    <span
      className="jp-CopilotRoom-statusItem"
      data-state={offline ? 'offline' : state}
      onClick={props.onClick}
      title="Open the Copilot room"
    >
      Copilot: {offline ? 'offline' : (STATE_LABELS[state] ?? state)}
    </span>
  );
}

export function statusItem(model: RoomModel, onClick: () => void): ReactWidget {
  return ReactWidget.create(<AgentState model={model} onClick={onClick} />);
}

/** The status-bar item: what the agent is doing, at a glance, from anywhere in JupyterLab. */
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { useSignal } from './components/hooks';
import { STATE_LABELS } from './components/room';
import { RoomModel } from './model';

function AgentState(props: { model: RoomModel; onClick: () => void }): JSX.Element {
  useSignal(props.model.changed);
  const { model } = props;
  const state = model.meta.state ?? '';
  const role = model.me?.role;
  const label =
    role === 'pending'
      ? 'waiting to join'
      : role === 'refused'
        ? 'not in the room'
        : model.connection !== 'online'
          ? 'offline'
          : (STATE_LABELS[state] ?? state);
  return (
    <span
      className="jp-CopilotRoom-statusItem"
      data-state={model.connection === 'online' ? state : 'offline'}
      onClick={props.onClick}
      title="Open the Copilot room"
    >
      Copilot: {label}
    </span>
  );
}

export function statusItem(model: RoomModel, onClick: () => void): ReactWidget {
  return ReactWidget.create(<AgentState model={model} onClick={onClick} />);
}

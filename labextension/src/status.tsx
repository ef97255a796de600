/** The status-bar item: what the agent is doing, at a glance, from anywhere in JupyterLab. */
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { useSignal } from './components/hooks';
import { IRoomModel, turnCards } from './model';
import { roomStatusLabel } from './policy';

function AgentState(props: { model: IRoomModel; onClick: () => void }): JSX.Element {
  const { model } = props;
  useSignal(model.changed);
  const online = model.connection === 'online';
  return (
    <span
      className="jp-CopilotRoom-statusItem"
      data-state={online ? model.meta.state : 'offline'}
      onClick={props.onClick}
      title="Open the Copilot room"
    >
      Copilot: {roomStatusLabel(model.me, model.connection, model.meta.state, turnCards(model))}
    </span>
  );
}

export function statusItem(model: IRoomModel, onClick: () => void): ReactWidget {
  return ReactWidget.create(<AgentState model={model} onClick={onClick} />);
}

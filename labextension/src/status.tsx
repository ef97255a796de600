/** The status-bar item: the room the page is in and what its agent is doing, at a glance, from
 * anywhere in JupyterLab. */
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { useSignal } from './components/hooks';
import { IRoomModel, turnCards } from './model';
import { roomStatusLabel } from './policy';
import { IRooms } from './rooms';

function AgentState(props: { room: string; model: IRoomModel; onClick: () => void }): JSX.Element {
  const { model, room } = props;
  useSignal(model.changed);
  const online = model.connection === 'online';
  return (
    <span
      className="jp-CopilotRoom-statusItem"
      data-state={online ? model.meta.state : 'offline'}
      onClick={props.onClick}
      title={`Open the Copilot room ${room}`}
    >
      Copilot · {room}:{' '}
      {roomStatusLabel(model.me, model.connection, model.meta.state, turnCards(model))}
    </span>
  );
}

function CurrentRoom(props: { rooms: IRooms; onClick: () => void }): JSX.Element {
  useSignal(props.rooms.currentChanged);
  const { name, model } = props.rooms.current;
  return <AgentState key={name} room={name} model={model} onClick={props.onClick} />;
}

export function statusItem(rooms: IRooms, onClick: () => void): ReactWidget {
  return ReactWidget.create(<CurrentRoom rooms={rooms} onClick={onClick} />);
}

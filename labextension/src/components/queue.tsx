/** The prompt queue: whose turn it is, who is next, and what each person may do about it. */
import React from 'react';

import { RoomModel } from '../model';
import { IQueueItem } from '../types';
import { useElapsed } from './hooks';
import { PersonName } from './person';

const STATES: Record<string, string> = {
  submitted: 'waiting',
  working: 'running',
  'input-required': 'waiting for an answer'
};

export function Queue(props: { model: RoomModel }): JSX.Element | null {
  const { model } = props;
  const items = model.queue;
  if (items.length === 0) {
    return null;
  }
  return (
    <section className="jp-CopilotRoom-queue" aria-label="Prompt queue">
      <h3 className="jp-CopilotRoom-heading">Queue</h3>
      <ol>
        {items.map((item, index) => (
          <QueueItem key={item.id} item={item} position={index} model={model} />
        ))}
      </ol>
    </section>
  );
}

function QueueItem(props: {
  item: IQueueItem;
  position: number;
  model: RoomModel;
}): JSX.Element {
  const { item, model } = props;
  const running = item.state !== 'submitted';
  const elapsed = useElapsed(running ? item.started_at : undefined);
  const mine = model.me?.username === item.author;
  const mayWithdraw =
    !running && (model.can('withdraw_any') || (mine && model.can('withdraw_own')));
  return (
    <li className="jp-CopilotRoom-queueItem" data-state={item.state}>
      <PersonName username={item.author} person={model.person(item.author)} />
      <span className="jp-CopilotRoom-excerpt" title={item.text}>
        {item.target && `${item.target.kind === 'skill' ? '/' : '@'}${item.target.name} `}
        {item.text}
      </span>
      <span className="jp-CopilotRoom-status">
        {STATES[item.state] ?? item.state}
        {running && ` · ${elapsed} s`}
      </span>
      {mayWithdraw && (
        <button
          className="jp-mod-styled jp-CopilotRoom-small"
          aria-label={`Withdraw ${item.author}'s prompt`}
          onClick={() => void model.withdraw(item.id)}
        >
          Withdraw
        </button>
      )}
      {running && model.can('abort') && (
        <button
          className="jp-mod-styled jp-mod-reject jp-CopilotRoom-small"
          aria-label="Abort the running turn"
          onClick={() => void model.abort()}
        >
          Abort
        </button>
      )}
    </li>
  );
}

/**
 * The prompt queue: whose turn it is, who is next, and what each person may do about it. The
 * section owns the action: a refusal stays readable when the item it came from has moved on.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import React, { useState } from 'react';

import { IRoomClient } from '../api';
import { IRoomModel } from '../model';
import { nameOf } from '../names';
import {
  isRunning,
  mayAbort,
  maySteer,
  mayWithdraw,
  promptStateLabel,
  targetLabel
} from '../policy';
import { myPlace } from '../tray';
import { IQueueItem } from '../types';
import { IAction, Refusal, useAction } from './action';
import { useElapsed } from './hooks';
import { OneLineForm } from './oneline';
import { PersonName } from './person';

export function Queue(props: { model: IRoomModel; client: IRoomClient }): JSX.Element | null {
  const { model, client } = props;
  const action = useAction();
  const items = model.queue;
  if (items.length === 0 && !action.refusal) {
    return null;
  }
  return (
    <section className="jp-CopilotRoom-queue" aria-label="Prompt queue">
      <h3 className="jp-CopilotRoom-heading">Queue</h3>
      <ol>
        {items.map(item => (
          <QueueItem key={item.id} item={item} model={model} client={client} action={action} />
        ))}
      </ol>
      <Refusal action={action} />
    </section>
  );
}

function QueueItem(props: {
  item: IQueueItem;
  model: IRoomModel;
  client: IRoomClient;
  action: IAction;
}): JSX.Element {
  const { item, model, client, action } = props;
  const running = isRunning(item);
  const elapsed = useElapsed(running ? item.started_at : undefined);
  const [steering, setSteering] = useState(false);
  const steerable = maySteer(model.me, item);
  return (
    <li className="jp-CopilotRoom-queueItem" data-state={item.state}>
      <PersonName username={item.author} person={model.person(item.author)} />
      <span className="jp-CopilotRoom-status">
        {promptStateLabel(item.state)}
        {running && ` · ${elapsed} s`}
      </span>
      {mayWithdraw(model.me, item) && (
        <WithdrawButton item={item} model={model} client={client} action={action} />
      )}
      {steerable && !steering && (
        <button
          className="jp-mod-styled jp-CopilotRoom-small"
          aria-label="Steer the running turn"
          title="Say something to the agent while it works on this prompt"
          disabled={action.busy}
          onClick={() => setSteering(true)}
        >
          Steer
        </button>
      )}
      {running && mayAbort(model.me, item) && (
        <button
          className="jp-mod-styled jp-mod-reject jp-CopilotRoom-small"
          aria-label="Abort the running turn"
          disabled={action.busy}
          onClick={() => void action.run(() => client.abort())}
        >
          Abort
        </button>
      )}
      <span className="jp-CopilotRoom-excerpt" title={item.text}>
        {item.target && `${targetLabel(item.target)} `}
        {item.text}
      </span>
      {steerable && steering && (
        <SteerBox
          action={action}
          send={text => client.steer(item.id, text)}
          close={() => setSteering(false)}
        />
      )}
    </li>
  );
}

/** The reader's own first waiting prompt, on a line that stays above the tray's body (it
 * scrolls, and at 250 px cards and the queue push their own entry out of sight), with its
 * Withdraw. */
export function MyPlace(props: { model: IRoomModel; client: IRoomClient }): JSX.Element | null {
  const { model, client } = props;
  const action = useAction();
  const place = myPlace(model.queue, model.me?.username);
  if (!place) {
    return null;
  }
  return (
    <div className="jp-CopilotRoom-myPlace" role="status">
      <span className="jp-CopilotRoom-myPlaceWords" title={place.item.text}>
        {place.words}
      </span>
      {mayWithdraw(model.me, place.item) && (
        <WithdrawButton item={place.item} model={model} client={client} action={action} />
      )}
      <Refusal action={action} />
    </div>
  );
}

function WithdrawButton(props: {
  item: IQueueItem;
  model: IRoomModel;
  client: IRoomClient;
  action: IAction;
}): JSX.Element {
  const { item, model, client, action } = props;
  return (
    <button
      className="jp-mod-styled jp-CopilotRoom-small"
      aria-label={`Withdraw ${nameOf(item.author, model)}'s prompt`}
      disabled={action.busy}
      onClick={async () => {
        if (await confirmWithdraw(item, model)) {
          await action.run(() => client.withdraw(item.id));
        }
      }}
    >
      Withdraw
    </button>
  );
}

/** A small input for a steering message: sent into the running turn, the agent reads it at its
 * next step. Enter sends, Escape closes. */
function SteerBox(props: {
  action: IAction;
  send: (text: string) => Promise<unknown>;
  close: () => void;
}): JSX.Element {
  const { action, send, close } = props;
  const submit = async (text: string): Promise<void> => {
    if ((await action.run(() => send(text))) !== undefined) {
      close();
    }
  };
  return (
    <OneLineForm
      className="jp-CopilotRoom-steerBox"
      field={{
        className: 'jp-CopilotRoom-steerInput',
        'aria-label': 'Steering message',
        placeholder: 'Tell the agent, now…',
        autoFocus: true
      }}
      submit="Send"
      busy={action.busy}
      onSubmit={text => void submit(text)}
      onEscape={close}
    >
      <button type="button" className="jp-mod-styled jp-CopilotRoom-small" onClick={close}>
        Cancel
      </button>
    </OneLineForm>
  );
}

/** Withdrawing cannot be undone (the prompt would have to be sent again, at the queue's end). */
async function confirmWithdraw(item: IQueueItem, model: IRoomModel): Promise<boolean> {
  const whose =
    item.author === model.me?.username ? 'your prompt' : `${nameOf(item.author, model)}'s prompt`;
  const result = await showDialog({
    title: 'Withdraw this prompt?',
    body: `This takes ${whose} out of the queue; it would have to be sent again, at the end.`,
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Withdraw' })]
  });
  return result.button.accept;
}

/** Between the transcript and the prompt box: cards that wait on someone, the queue, notices
 * for the reader (`children`: the host's welcome, the Copilot sign-in) and the people. It
 * scrolls on its own past its share of the panel, so the transcript keeps at least 40% of a
 * laptop-sized panel (style/base.css); cards come first, so a card that waits on the reader is
 * in sight before any notice, and it folds to one line that still counts what waits. The
 * reader's own waiting prompt has a line above what scrolls, folded or not. */
import React, { useState } from 'react';

import { IRoomClient } from '../api';
import { IRoomModel } from '../model';
import { isRunning, mayAnswer } from '../policy';
import { peopleHeading, traySummary } from '../tray';
import { Cards } from './cards';
import { People } from './people';
import { MyPlace, Queue } from './queue';

export function Tray(props: {
  model: IRoomModel;
  client: IRoomClient;
  children?: React.ReactNode;
}): JSX.Element {
  const { model, client } = props;
  const [folded, setFolded] = useState(false);
  const people = model.participants;
  const summary = traySummary({
    cards: model.approvals.length,
    atTheDoor: people.filter(p => mayAnswer(model.me, p.answerers)).length,
    queued: model.queue.filter(item => !isRunning(item)).length // the running one is no queue
  });
  return (
    <div className="jp-CopilotRoom-tray" data-folded={folded}>
      {summary && (
        <button
          type="button"
          className="jp-CopilotRoom-trayFold"
          aria-expanded={!folded}
          title={folded ? 'Show the cards and the queue' : 'Fold the cards and the queue'}
          onClick={() => setFolded(!folded)}
        >
          <span aria-hidden="true">{folded ? '▸' : '▾'}</span> {summary}
        </button>
      )}
      <MyPlace model={model} client={client} />
      <div className="jp-CopilotRoom-trayBody">
        {!folded && (
          <>
            <Cards model={model} client={client} />
            <Queue model={model} client={client} />
          </>
        )}
        {props.children}
        <details className="jp-CopilotRoom-peopleBox">
          <summary>{peopleHeading(people)}</summary>
          <People model={model} client={client} />
        </details>
      </div>
    </div>
  );
}

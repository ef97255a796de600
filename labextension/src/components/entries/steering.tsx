/** A steering message someone said into a running turn: "[Bob] (steering): ...". The agent
 * read it at its next step, attributed the same way. */
import React from 'react';

import { ISteeringEntry } from '../../entries';
import { IRoomModel } from '../../model';
import { PersonName } from '../person';
import { formatTime } from './time';

export function SteeringEntry(props: { entry: ISteeringEntry; model: IRoomModel }): JSX.Element {
  const { entry, model } = props;
  return (
    <div className="jp-CopilotRoom-entry jp-CopilotRoom-steering" data-entry-id={entry.id}>
      <div className="jp-CopilotRoom-entryHeader">
        <PersonName username={entry.author} person={model.person(entry.author)} />
        <span className="jp-CopilotRoom-steeringLabel">(steering)</span>
        <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
      </div>
      <div className="jp-CopilotRoom-promptText">{entry.body}</div>
    </div>
  );
}

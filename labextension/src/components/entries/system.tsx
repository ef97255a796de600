/** A line from the room itself: the agent is ready, someone was admitted, an error. People it
 * mentions are drawn by name (`people` and the `{n}` of its template). */
import React from 'react';

import { IAdmissionEntry, IErrorEntry, ISystemEntry } from '../../entries';
import { IRoomModel } from '../../model';
import { nameParts } from '../../names';
import { Name } from '../person';
import { formatTime } from './time';

export function SystemEntry(props: {
  entry: ISystemEntry | IAdmissionEntry | IErrorEntry;
  model: IRoomModel;
}): JSX.Element {
  const { entry, model } = props;
  const people = entry.kind === 'error' ? undefined : entry.people;
  return (
    <div className={`jp-CopilotRoom-entry jp-CopilotRoom-system jp-mod-${entry.kind}`}>
      <span className="jp-CopilotRoom-systemText">
        {nameParts(entry.body, people).map((part, i) =>
          typeof part === 'string' ? (
            <React.Fragment key={i}>{part}</React.Fragment>
          ) : (
            <Name key={i} username={part.username} model={model} />
          )
        )}
      </span>
      <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
    </div>
  );
}

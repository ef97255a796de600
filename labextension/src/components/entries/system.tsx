/** A line from the room itself: the agent is ready, someone was admitted, an error. */
import React from 'react';

import { IAdmissionEntry, IErrorEntry, ISystemEntry } from '../../entries';
import { formatTime } from './time';

export function SystemEntry(props: {
  entry: ISystemEntry | IAdmissionEntry | IErrorEntry;
}): JSX.Element {
  const { entry } = props;
  return (
    <div className={`jp-CopilotRoom-entry jp-CopilotRoom-system jp-mod-${entry.kind}`}>
      <span className="jp-CopilotRoom-systemText">{entry.body}</span>
      <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
    </div>
  );
}

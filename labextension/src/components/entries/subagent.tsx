/** A custom agent running as a sub-agent task. */
import React from 'react';

import { ISubagentEntry } from '../../entries';
import { STATUS } from './tool';

export function SubagentEntry(props: { entry: ISubagentEntry }): JSX.Element {
  const { entry } = props;
  return (
    <div className="jp-CopilotRoom-entry jp-CopilotRoom-subagent" data-state={entry.state}>
      Sub-agent <strong>@{entry.name}</strong>: {entry.body}{' '}
      <span className="jp-CopilotRoom-status">{STATUS[entry.state] ?? entry.state}</span>
      {entry.error && <div className="jp-CopilotRoom-note">{entry.error}</div>}
    </div>
  );
}

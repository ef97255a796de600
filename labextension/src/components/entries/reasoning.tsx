/** The agent's reasoning, collapsed. */
import React from 'react';

import { IReasoningEntry } from '../../entries';

export function ReasoningEntry(props: { entry: IReasoningEntry }): JSX.Element {
  return (
    <details className="jp-CopilotRoom-entry jp-CopilotRoom-reasoning">
      <summary>Reasoning</summary>
      <div className="jp-CopilotRoom-preformatted">{props.entry.body}</div>
    </details>
  );
}

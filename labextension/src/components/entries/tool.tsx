/** A tool call: its name and command or path, its state and time; the result collapsed. */
import React from 'react';

import { IToolEntry, ToolState } from '../../entries';

const STATUS: Record<ToolState, string> = {
  running: 'running…',
  success: 'done',
  error: 'failed'
};

export function ToolEntry(props: { entry: IToolEntry }): JSX.Element {
  const { entry } = props;
  return (
    <details className="jp-CopilotRoom-entry jp-CopilotRoom-tool" data-state={entry.state}>
      <summary>
        <span className="jp-CopilotRoom-toolName">{entry.tool}</span>
        {entry.summary && entry.summary !== entry.tool && (
          <code className="jp-CopilotRoom-toolSummary" title={entry.summary}>
            {entry.summary}
          </code>
        )}
        <span className="jp-CopilotRoom-status">
          {STATUS[entry.state] ?? entry.state}
          {typeof entry.duration === 'number' && ` · ${entry.duration.toFixed(1)} s`}
        </span>
      </summary>
      {entry.result && <pre className="jp-CopilotRoom-result">{entry.result}</pre>}
    </details>
  );
}

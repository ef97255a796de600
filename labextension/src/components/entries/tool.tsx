/** A tool call: its name and command or path, its state and time; the result collapsed (and
 * a long one shown in part until asked). A row its turn's end closed says `stopped`. */
import React from 'react';

import { IToolEntry, ToolState } from '../../entries';
import { Collapsible } from './collapse';

/** The words for a tool's or a sub-agent's state. */
export const STATUS: Record<ToolState, string> = {
  running: 'running…',
  success: 'done',
  error: 'failed',
  stopped: 'stopped',
  declined: 'not run'
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
      {entry.result && (
        <Collapsible text={entry.result} what="output">
          <pre className="jp-CopilotRoom-result">{entry.result}</pre>
        </Collapsible>
      )}
    </details>
  );
}

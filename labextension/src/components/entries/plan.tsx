/** The agent's plan for the turn, as a checklist: one entry a turn, showing its latest steps. */
import React from 'react';

import { bidiShown } from '../../bidi';
import { IPlanEntry } from '../../entries';

const MARKS: Record<string, string> = { completed: '✓', in_progress: '→', pending: '○' };
const WORDS: Record<string, string> = {
  completed: 'done',
  in_progress: 'in progress',
  pending: 'to do'
};

export function PlanEntry(props: { entry: IPlanEntry }): JSX.Element {
  const steps = props.entry.steps ?? [];
  const done = steps.filter(step => step.status === 'completed').length;
  return (
    <div className="jp-CopilotRoom-entry jp-CopilotRoom-plan">
      <div className="jp-CopilotRoom-planTitle">
        Plan <span className="jp-CopilotRoom-status">{`${done} of ${steps.length} done`}</span>
      </div>
      <ol className="jp-CopilotRoom-planSteps">
        {steps.map((step, index) => (
          <li key={index} data-status={step.status}>
            <span className="jp-CopilotRoom-planMark" aria-label={WORDS[step.status]}>
              {MARKS[step.status] ?? MARKS.pending}
            </span>{' '}
            {bidiShown(step.content)}
          </li>
        ))}
      </ol>
    </div>
  );
}

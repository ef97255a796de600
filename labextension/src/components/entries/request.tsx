/** What the agent asked (a permission or a question) and how it ended, kept in the transcript
 * after its card is gone. */
import React from 'react';

import { IPermissionEntry, IQuestionEntry } from '../../entries';
import { IRoomModel } from '../../model';
import { outcomeLabel, requestAction } from '../../policy';
import { Name } from '../person';

export function RequestEntry(props: {
  entry: IPermissionEntry | IQuestionEntry;
  model: IRoomModel;
}): JSX.Element {
  const { entry, model } = props;
  const who = entry.answered_by ? (
    <>
      {' by '}
      <Name username={entry.answered_by} model={model} />
    </>
  ) : null;
  const what =
    entry.kind === 'question' ? 'asked' : `asked to ${requestAction(entry.request_kind)}`;
  return (
    <div className="jp-CopilotRoom-entry jp-CopilotRoom-request" data-state={entry.state}>
      Copilot {what}: <code>{entry.body}</code>{' '}
      <span className="jp-CopilotRoom-status">
        {outcomeLabel(entry.state)}
        {entry.state !== 'pending' && entry.state !== 'timed_out' && who}
      </span>
      {entry.answer && <div className="jp-CopilotRoom-note">Answer: {entry.answer}</div>}
      {entry.feedback && <div className="jp-CopilotRoom-note">Feedback: {entry.feedback}</div>}
    </div>
  );
}

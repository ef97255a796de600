/** What the agent asked (a permission or a question) and how it ended, kept in the transcript
 * after its card is gone. */
import React from 'react';

import { IPermissionEntry, IQuestionEntry } from '../../entries';
import { hiddenIn, hiddenWords, SUMMARY } from '../../hidden';
import { IRoomModel } from '../../model';
import { agentName } from '../../names';
import { outcomeLabel, requestAction } from '../../policy';
import { Name } from '../person';

export function RequestEntry(props: {
  entry: IPermissionEntry | IQuestionEntry;
  model: IRoomModel;
}): JSX.Element {
  const { entry, model } = props;
  const approvers = entry.approvers ?? [];
  const bothApproved = entry.state === 'approved' && approvers.length > 1;
  const earlier = approvers.filter(username => username !== entry.answered_by);
  const who = bothApproved ? (
    <>
      {' by '}
      {approvers.map((username, index) => (
        <React.Fragment key={username}>
          {index > 0 && ' and '}
          <Name username={username} model={model} />
        </React.Fragment>
      ))}
    </>
  ) : entry.answered_by ? (
    <>
      {' by '}
      <Name username={entry.answered_by} model={model} />
      {entry.state === 'rejected' && earlier.length > 0 && (
        <>
          {' after '}
          <Name username={earlier[0]} model={model} />
          {' approved'}
        </>
      )}
    </>
  ) : null;
  // The rule that asked two people; an automatic decision names its rule in its feedback.
  const rule = approvers.length > 0 && entry.rule ? entry.rule : null;
  const what =
    entry.kind === 'question'
      ? 'asked'
      : entry.request_kind === 'promote'
        ? `to ${requestAction(entry.request_kind)}`
        : `asked to ${requestAction(entry.request_kind)}`;
  const cut = hiddenIn(entry.details)[SUMMARY]; // the card said so too (room/cards/card_content.py)
  return (
    <div className="jp-CopilotRoom-entry jp-CopilotRoom-request" data-state={entry.state}>
      {/* A side thread's changes coming back: the room asks that, not the agent. */}
      {entry.request_kind === 'promote' ? 'The room asks' : agentName(entry.agent)} {what}:{' '}
      <code>{entry.body}</code>
      {cut && <span className="jp-CopilotRoom-hiddenNote">{` (${hiddenWords(cut)})`}</span>}{' '}
      <span className="jp-CopilotRoom-status">
        {outcomeLabel(entry.state)}
        {entry.state !== 'pending' && entry.state !== 'timed_out' && who}
      </span>
      {rule && (
        <div className="jp-CopilotRoom-note">
          Rule: <RuleText rule={rule} />
        </div>
      )}
      {entry.answer && <div className="jp-CopilotRoom-note">Answer: {entry.answer}</div>}
      {entry.feedback && <div className="jp-CopilotRoom-note">Feedback: {entry.feedback}</div>}
    </div>
  );
}

/** A policy rule as the room names it ("shell: `rm *` -> two"), its pattern as code. */
export function RuleText(props: { rule: string }): JSX.Element {
  const parts = props.rule.split('`');
  return (
    <>
      {parts.map((part, index) =>
        index % 2 ? (
          <code key={index} className="jp-CopilotRoom-rulePattern">
            {part}
          </code>
        ) : (
          part
        )
      )}
    </>
  );
}

/** A permission request: a shell command, a file write, a URL, a notebook edit... */
import React, { useState } from 'react';

import { IRoomClient } from '../../api';
import { needsReader } from '../../attention';
import { IWholeCard, SUMMARY } from '../../hidden';
import { IRoomModel } from '../../model';
import { nameOf } from '../../names';
import { mayAnswer, mayApprove, requestTitle, stillMayApprove, whoApproves } from '../../policy';
import { IApproval } from '../../types';
import { IAction } from '../action';
import { RuleText } from '../entries/request';
import { CutText } from './cuttext';
import { CardHeader } from './header';

export function ApprovalCard(props: {
  card: IApproval;
  model: IRoomModel;
  client: IRoomClient;
  action: IAction;
}): JSX.Element {
  const { card, model, client, action } = props;
  const [feedback, setFeedback] = useState('');
  const [whole, setWhole] = useState<IWholeCard | null>(null);
  const intention = card.details.intention;
  const answer = (approve: boolean) =>
    void action.run(() =>
      client.answerPermission(card.id, approve, approve ? undefined : feedback)
    );
  const cut = (field: string, className: string, asDiff = false) => (
    <CutText
      text={field === SUMMARY ? card.summary : card.details[field]}
      field={field}
      hidden={card.hidden?.[field]}
      whole={whole}
      busy={action.busy}
      onShowAll={() => void action.run(async () => setWhole(await client.approvalInFull(card.id)))}
      className={className}
      asDiff={asDiff}
    />
  );
  return (
    <div
      className="jp-CopilotRoom-card jp-CopilotRoom-approval"
      role="group"
      aria-label={`Approval: ${card.summary}`}
      data-kind={card.kind}
      data-card-id={card.id}
      data-needs-you={needsReader(model.me, card)}
      tabIndex={-1}
    >
      <CardHeader title={requestTitle(card.kind)} card={card} model={model} />
      {cut(SUMMARY, 'jp-CopilotRoom-cardSummary')}
      {intention && <div className="jp-CopilotRoom-note">{intention}</div>}
      {card.details.kernel && <div className="jp-CopilotRoom-note">{card.details.kernel}</div>}
      {card.kind === 'promote' && (
        <div className="jp-CopilotRoom-note jp-CopilotRoom-promoteRule" role="note">
          {promoteRule(card, model)}
        </div>
      )}
      {card.details.conflicts && (
        <div className="jp-CopilotRoom-note jp-CopilotRoom-conflicts" role="alert">
          {card.details.conflicts}
        </div>
      )}
      {card.details.waiting && (
        <div className="jp-CopilotRoom-note" role="status">
          {card.details.waiting}
        </div>
      )}
      {(card.approvers_needed ?? 1) > 1 && (
        <div className="jp-CopilotRoom-note jp-CopilotRoom-twoApprovers" role="status">
          {twoApprovers(card, model)}
        </div>
      )}
      {card.details.code && (
        <details open>
          <summary>Code</summary>
          {cut('code', 'jp-CopilotRoom-result')}
        </details>
      )}
      {card.details.diff && (
        // Open: the change is what people judge a card by (its buttons stay in sight below it).
        <details open>
          <summary>Diff</summary>
          {cut('diff', 'jp-CopilotRoom-cardDiff', true)}
        </details>
      )}
      {mayAnswer(model.me, card.answerers) && (
        <>
          <div className="jp-CopilotRoom-cardActions">
            {mayApprove(model.me, card.answerers) && (
              <button
                className="jp-mod-styled jp-mod-accept"
                disabled={action.busy}
                onClick={() => answer(true)}
              >
                Approve
              </button>
            )}
            <button
              className="jp-mod-styled jp-mod-reject"
              disabled={action.busy}
              onClick={() => answer(false)}
            >
              Reject
            </button>
          </div>
          {/* Below the buttons, not in their bar: the bar stays at the tray's foot, and stays one
            line high at 250 px. */}
          <input
            className="jp-mod-styled jp-CopilotRoom-feedback"
            placeholder="Why not? (optional)"
            aria-label="Feedback for the agent"
            value={feedback}
            onChange={event => setFeedback(event.target.value)}
          />
        </>
      )}
    </div>
  );
}

/** Who brings a side thread's changes into everyone's files: never its owner alone. */
function promoteRule(card: IApproval, model: IRoomModel): string {
  const needed = card.approvers_needed ?? 1;
  const owner = nameOf(card.author, model);
  return needed > 1
    ? `Bringing this thread back needs ${whoApproves(card.answerers, needed)} other than ${owner}.`
    : `Bringing this thread back needs ${whoApproves(card.answerers, needed)}; ${owner} approves it only as a host.`;
}

/** "Approved by Alice; needs one more: the author or another host" (the rule that asked for
 * two approvers until someone approved). */
function twoApprovers(card: IApproval, model: IRoomModel): JSX.Element {
  const approvers = card.approvers ?? [];
  if (approvers.length === 0) {
    return (
      <>
        Needs two approvers: {whoApproves(card.answerers, 2)}
        {card.rule && (
          <>
            {' (rule '}
            <RuleText rule={card.rule} />)
          </>
        )}
        .
      </>
    );
  }
  const names = approvers.map(username => nameOf(username, model)).join(' and ');
  return <>{`Approved by ${names}; needs one more: ${stillMayApprove(card)}.`}</>;
}

/** The top of a waiting card: what it asks, the time left, for whose prompt, and (for those who
 * cannot answer) whom the room waits on. Each on its own line, so nothing runs into anything in
 * a narrow sidebar. */
import React from 'react';

import { IRoomModel } from '../../model';
import { mayAnswer } from '../../policy';
import { IApproval } from '../../types';
import { useCountdown } from '../hooks';
import { Name, PersonName } from '../person';

export function CardHeader(props: {
  title: string;
  card: IApproval;
  model: IRoomModel;
}): JSX.Element {
  const { title, card, model } = props;
  const seconds = useCountdown(card.deadline);
  return (
    <div className="jp-CopilotRoom-cardHeader">
      <div className="jp-CopilotRoom-cardTitle">
        <strong>{title}</strong>
        <span className="jp-CopilotRoom-countdown" aria-label={`${seconds} seconds left`}>
          {seconds} s
        </span>
      </div>
      <div className="jp-CopilotRoom-cardFor">
        <span>for </span>
        <PersonName username={card.author} person={model.person(card.author)} />
      </div>
      {!mayAnswer(model.me, card.answerers) && (
        <div className="jp-CopilotRoom-waitingOn">
          You cannot answer this: waiting on <Name username={card.author} model={model} /> or a
          host.
        </div>
      )}
    </div>
  );
}

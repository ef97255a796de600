/** The top of a waiting card: what it asks, the time left, for whose prompt, and (for those who
 * cannot answer) whom the room waits on, as the card's `answerers` name them. Each on its own line, so nothing runs into anything in
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
          {card.answerers.users.length > 0 ? (
            <>
              You cannot answer this: waiting on{' '}
              {card.answerers.users.map((user, n) => (
                <React.Fragment key={user}>
                  {n > 0 && ', '}
                  <Name username={user} model={model} />
                </React.Fragment>
              ))}{' '}
              or a host.
            </>
          ) : (
            <>You cannot answer this: waiting on a host.</>
          )}
        </div>
      )}
    </div>
  );
}

/** A question from the agent: one of its choices, or an answer in the person's own words. */
import React, { useState } from 'react';

import { IRoomClient } from '../../api';
import { needsReader } from '../../attention';
import { IRoomModel } from '../../model';
import { mayAnswer } from '../../policy';
import { IApproval } from '../../types';
import { IAction } from '../action';
import { CardHeader } from './header';

export function QuestionCard(props: {
  card: IApproval;
  model: IRoomModel;
  client: IRoomClient;
  action: IAction;
}): JSX.Element {
  const { card, model, client, action } = props;
  const [answer, setAnswer] = useState('');
  const send = (text: string) => void action.run(() => client.answerQuestion(card.id, text));
  return (
    <div
      className="jp-CopilotRoom-card jp-CopilotRoom-question"
      role="group"
      aria-label="Question"
      data-card-id={card.id}
      data-needs-you={needsReader(model.me, card)}
      tabIndex={-1}
    >
      <CardHeader title="Copilot asks" card={card} model={model} />
      <div className="jp-CopilotRoom-cardSummary">{card.summary}</div>
      {mayAnswer(model.me, card.answerers) && (
        <div className="jp-CopilotRoom-cardActions">
          {card.choices.map(choice => (
            <button
              key={choice}
              className="jp-mod-styled jp-CopilotRoom-choice"
              disabled={action.busy}
              onClick={() => send(choice)}
            >
              {choice}
            </button>
          ))}
          {card.allow_freeform && (
            <form
              className="jp-CopilotRoom-answer"
              onSubmit={event => {
                event.preventDefault();
                if (answer.trim()) {
                  send(answer.trim());
                }
              }}
            >
              <input
                className="jp-mod-styled"
                placeholder="Your answer"
                aria-label="Your answer"
                value={answer}
                onChange={event => setAnswer(event.target.value)}
              />
              <button type="submit" className="jp-mod-styled jp-mod-accept" disabled={action.busy}>
                Answer
              </button>
            </form>
          )}
        </div>
      )}
    </div>
  );
}

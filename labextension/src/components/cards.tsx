/**
 * Cards that wait on someone: people at the door (for hosts), the agent's permission requests
 * and questions. Everyone sees the agent's cards; only those the server allows get buttons,
 * everyone else sees whom the room waits on.
 * The section owns the action, so a refusal stays readable when the card it came from is gone
 * (someone else answered first, the time ran out).
 */
import React from 'react';

import { IRoomClient } from '../api';
import { IRoomModel } from '../model';
import { mayAnswer } from '../policy';
import { Refusal, useAction } from './action';
import { AdmissionCard } from './cards/admission';
import { ApprovalCard } from './cards/approval';
import { QuestionCard } from './cards/question';

export function Cards(props: { model: IRoomModel; client: IRoomClient }): JSX.Element | null {
  const { model, client } = props;
  const action = useAction();
  const cards = model.approvals;
  const waiting = model.participants.filter(person => mayAnswer(model.me, person.answerers));
  if (cards.length === 0 && waiting.length === 0 && !action.refusal) {
    return null;
  }
  return (
    <section className="jp-CopilotRoom-cards" aria-label="Waiting for an answer">
      {waiting.map(person => (
        <AdmissionCard key={person.username} person={person} client={client} action={action} />
      ))}
      {cards.map(card =>
        card.kind === 'question' ? (
          <QuestionCard key={card.id} card={card} model={model} client={client} action={action} />
        ) : (
          <ApprovalCard key={card.id} card={card} model={model} client={client} action={action} />
        )
      )}
      <Refusal action={action} />
    </section>
  );
}

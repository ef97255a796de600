/**
 * Cards that wait on someone: the agent's permission requests and questions, and people at the
 * door. Everyone sees the card; only those the server allows get buttons, everyone else sees
 * whom the room is waiting on.
 */
import React, { useState } from 'react';

import { RoomAPIError } from '../api';
import { RoomModel } from '../model';
import { IApproval, IParticipant } from '../types';
import { useCountdown } from './hooks';
import { PersonName } from './person';

const KIND_TITLES: Record<string, string> = {
  shell: 'Run a shell command',
  write: 'Write a file',
  url: 'Fetch a URL',
  mcp: 'Call an MCP tool',
  read: 'Read a file',
  'custom-tool': 'Use a tool',
  notebook: 'Edit a notebook',
  question: 'Copilot asks'
};

/** Run an action, showing the room's error message if it refuses. */
function useAction(): [string, (action: () => Promise<unknown>) => Promise<void>] {
  const [error, setError] = useState('');
  const run = async (action: () => Promise<unknown>) => {
    setError('');
    try {
      await action();
    } catch (err) {
      setError(err instanceof RoomAPIError ? err.message : String(err));
    }
  };
  return [error, run];
}

export function ApprovalCards(props: { model: RoomModel }): JSX.Element | null {
  const { model } = props;
  const cards = model.approvals;
  if (cards.length === 0) {
    return null;
  }
  return (
    <section className="jp-CopilotRoom-cards" aria-label="Waiting for an answer">
      {cards.map(card =>
        card.kind === 'question' ? (
          <QuestionCard key={card.id} card={card} model={model} />
        ) : (
          <ApprovalCard key={card.id} card={card} model={model} />
        )
      )}
    </section>
  );
}

function mayAnswer(model: RoomModel, card: IApproval): boolean {
  return (
    model.can('answer_any') ||
    (model.can('answer_own') && model.me?.username === card.author)
  );
}

function CardHeader(props: { card: IApproval; model: RoomModel }): JSX.Element {
  const { card, model } = props;
  const seconds = useCountdown(card.deadline);
  return (
    <div className="jp-CopilotRoom-cardHeader">
      <strong>{KIND_TITLES[card.kind] ?? card.kind}</strong>
      <span className="jp-CopilotRoom-countdown" aria-label={`${seconds} seconds left`}>
        {seconds} s
      </span>
      <div className="jp-CopilotRoom-cardFor">
        for <PersonName username={card.author} person={model.person(card.author)} />
        {!mayAnswer(model, card) && (
          <span className="jp-CopilotRoom-waitingOn">
            {' '}
            · waiting on {card.author} or a host
          </span>
        )}
      </div>
    </div>
  );
}

function ApprovalCard(props: { card: IApproval; model: RoomModel }): JSX.Element {
  const { card, model } = props;
  const [feedback, setFeedback] = useState('');
  const [error, run] = useAction();
  const intention = card.details?.intention;
  return (
    <div
      className="jp-CopilotRoom-card jp-CopilotRoom-approval"
      role="group"
      aria-label={`Approval: ${card.summary}`}
      data-kind={card.kind}
    >
      <CardHeader card={card} model={model} />
      <pre className="jp-CopilotRoom-cardSummary">{card.summary}</pre>
      {intention && <div className="jp-CopilotRoom-note">{intention}</div>}
      {card.details?.diff && (
        <details>
          <summary>Diff</summary>
          <pre className="jp-CopilotRoom-result">{card.details.diff}</pre>
        </details>
      )}
      {mayAnswer(model, card) && (
        <div className="jp-CopilotRoom-cardActions">
          <button
            className="jp-mod-styled jp-mod-accept"
            onClick={() => run(() => model.answerPermission(card.id, true))}
          >
            Approve
          </button>
          <input
            className="jp-mod-styled jp-CopilotRoom-feedback"
            placeholder="Why not? (optional)"
            aria-label="Feedback for the agent"
            value={feedback}
            onChange={event => setFeedback(event.target.value)}
          />
          <button
            className="jp-mod-styled jp-mod-reject"
            onClick={() => run(() => model.answerPermission(card.id, false, feedback))}
          >
            Reject
          </button>
        </div>
      )}
      {error && <div className="jp-CopilotRoom-error">{error}</div>}
    </div>
  );
}

function QuestionCard(props: { card: IApproval; model: RoomModel }): JSX.Element {
  const { card, model } = props;
  const [answer, setAnswer] = useState('');
  const [error, run] = useAction();
  const send = (text: string) => run(() => model.answerQuestion(card.id, text));
  return (
    <div className="jp-CopilotRoom-card jp-CopilotRoom-question" role="group" aria-label="Question">
      <CardHeader card={card} model={model} />
      <div className="jp-CopilotRoom-cardSummary">{card.summary}</div>
      {mayAnswer(model, card) && (
        <div className="jp-CopilotRoom-cardActions">
          {card.choices.map(choice => (
            <button key={choice} className="jp-mod-styled" onClick={() => send(choice)}>
              {choice}
            </button>
          ))}
          {card.allow_freeform && (
            <form
              onSubmit={event => {
                event.preventDefault();
                if (answer.trim()) {
                  void send(answer.trim());
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
              <button type="submit" className="jp-mod-styled jp-mod-accept">
                Answer
              </button>
            </form>
          )}
        </div>
      )}
      {error && <div className="jp-CopilotRoom-error">{error}</div>}
    </div>
  );
}

export function AdmissionCard(props: {
  person: IParticipant;
  model: RoomModel;
}): JSX.Element {
  const { person, model } = props;
  const [error, run] = useAction();
  return (
    <div
      className="jp-CopilotRoom-card jp-CopilotRoom-admission"
      role="group"
      aria-label={`${person.username} asks to join`}
    >
      <div className="jp-CopilotRoom-cardHeader">
        <PersonName username={person.username} person={person} /> asks to join
      </div>
      <div className="jp-CopilotRoom-cardActions">
        <button
          className="jp-mod-styled"
          onClick={() => run(() => model.admit(person.username, 'viewer'))}
        >
          Admit as viewer
        </button>
        <button
          className="jp-mod-styled jp-mod-accept"
          onClick={() => run(() => model.admit(person.username, 'member'))}
        >
          Admit as member
        </button>
        <button
          className="jp-mod-styled jp-mod-reject"
          onClick={() => run(() => model.admit(person.username, 'reject'))}
        >
          Turn away
        </button>
      </div>
      {error && <div className="jp-CopilotRoom-error">{error}</div>}
    </div>
  );
}

/** Someone at the door, as hosts see them: admit as viewer or member, or turn away (each button
 * names them too, for those who hear it apart from the card). */
import React from 'react';

import { Decision, IRoomClient } from '../../api';
import { displayName } from '../../names';
import { IParticipant } from '../../types';
import { IAction } from '../action';
import { PersonName } from '../person';

const DECISIONS: { decision: Decision; label: string; className: string }[] = [
  { decision: 'viewer', label: 'Admit as viewer', className: '' },
  { decision: 'member', label: 'Admit as member', className: 'jp-mod-accept' },
  { decision: 'reject', label: 'Turn away', className: 'jp-mod-reject' }
];

export function AdmissionCard(props: {
  person: IParticipant;
  client: IRoomClient;
  action: IAction;
}): JSX.Element {
  const { person, client, action } = props;
  const name = displayName(person.username, person);
  return (
    <div
      className="jp-CopilotRoom-card jp-CopilotRoom-admission"
      role="group"
      aria-label={`${name} asks to join`}
      data-admission={person.username}
      tabIndex={-1}
    >
      <div className="jp-CopilotRoom-cardHeader">
        <div className="jp-CopilotRoom-cardFor">
          <PersonName username={person.username} person={person} />
          <span> asks to join</span>
        </div>
      </div>
      {person.door_note && (
        <p className="jp-CopilotRoom-doorNote" data-door-note>
          {person.door_note}
        </p>
      )}
      <div className="jp-CopilotRoom-cardActions">
        {DECISIONS.map(({ decision, label, className }) => (
          <button
            key={decision}
            className={`jp-mod-styled ${className}`}
            aria-label={`${label}: ${name}`}
            disabled={action.busy}
            onClick={() => void action.run(() => client.admit(person.username, decision))}
          >
            {label}
          </button>
        ))}
      </div>
    </div>
  );
}

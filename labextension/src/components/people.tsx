/** Who is in the room, with their roles; hosts re-role and remove people here (people at the
 * door wait with the cards, cards.tsx, where hosts see them without opening this section). */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import React from 'react';

import { IRoomClient } from '../api';
import { IRoomModel } from '../model';
import { AssignableRole } from '../generated/declarations';
import { displayName } from '../names';
import { ASSIGNABLE_ROLES, isAdmitted, mayChangeRole, roleLabel } from '../policy';
import { IParticipant } from '../types';
import { IAction, Refusal, useAction } from './action';
import { MyName } from './myname';
import { PersonName } from './person';
import { PersonUsage, RoomUsage } from './usage';

export function People(props: { model: IRoomModel; client: IRoomClient }): JSX.Element {
  const { model, client } = props;
  const action = useAction();
  const people = model.participants;
  return (
    // The tray's "People (n online)" line is its heading: no second one here.
    <section className="jp-CopilotRoom-people" aria-label="People in the room">
      {model.me && (
        <MyName
          current={displayName(model.me.username, model.person(model.me.username))}
          client={client}
          action={action}
        />
      )}
      <RoomUsage model={model} />
      <ul>
        {people
          .filter(p => isAdmitted(p))
          .map(person => (
            <Person
              key={person.username}
              person={person}
              model={model}
              client={client}
              action={action}
            />
          ))}
      </ul>
      <Refusal action={action} />
    </section>
  );
}

function Person(props: {
  person: IParticipant;
  model: IRoomModel;
  client: IRoomClient;
  action: IAction;
}): JSX.Element {
  const { person, model, client, action } = props;
  const { username } = person;
  const name = displayName(username, person);
  return (
    <li className="jp-CopilotRoom-personRow" data-online={person.online}>
      <span
        className="jp-CopilotRoom-presence"
        role="img"
        title={person.online ? 'online' : 'offline'}
        aria-label={person.online ? 'online' : 'offline'}
      />
      <PersonName username={username} person={person} />
      {mayChangeRole(model.me, person) ? (
        <span className="jp-CopilotRoom-personActions">
          <select
            className="jp-mod-styled"
            aria-label={`Role of ${name}`}
            value={roleLabel(person)}
            disabled={action.busy}
            onChange={event => {
              const role = event.target.value as AssignableRole;
              void action.run(() => client.setRole(username, role));
            }}
          >
            {ASSIGNABLE_ROLES.map(role => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
          <button
            className="jp-mod-styled jp-CopilotRoom-small"
            aria-label={`Remove ${name} from the room`}
            disabled={action.busy}
            onClick={async () => {
              if (await confirmRemove(person)) {
                await action.run(() => client.remove(username));
              }
            }}
          >
            Remove
          </button>
        </span>
      ) : (
        <span className={`jp-CopilotRoom-badge jp-mod-${roleLabel(person)}`}>
          {roleLabel(person)}
        </span>
      )}
      <PersonUsage model={model} client={client} username={username} action={action} />
    </li>
  );
}

/** Removing someone cannot be undone from the panel: ask first. */
async function confirmRemove(person: IParticipant): Promise<boolean> {
  const result = await showDialog({
    title: `Remove ${displayName(person.username, person)}?`,
    body: 'They leave the room now, and the room turns them away if they come back.',
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Remove' })]
  });
  return result.button.accept;
}

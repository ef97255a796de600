/** The outside services the room links to (fronts: a pull request on GitHub...) that are not
 * well, as the server lists them in `meta.fronts`: one header item each while it lasts. */
import React from 'react';

import { serviceName } from '../chats';
import { IRoomModel } from '../model';
import { IMeta } from '../types';

/** Each front that is not well, with what is wrong. */
export function unwellFronts(meta: IMeta): [string, string][] {
  return Object.entries(meta.fronts ?? {});
}

export function FrontStatus(props: { model: IRoomModel }): JSX.Element {
  return (
    <>
      {unwellFronts(props.model.meta).map(([front, status]) => {
        const name = serviceName(front);
        return (
          <span
            key={front}
            className="jp-CopilotRoom-badge jp-CopilotRoom-front"
            data-front={front}
            title={`${name} says: ${status}. The room works as before; what ${name} missed meanwhile follows once it answers.`}
          >
            {name}: {status}
          </span>
        );
      })}
    </>
  );
}

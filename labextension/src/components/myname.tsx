/** "Change my name…" where the server lets people choose theirs (a plain `jupyter lab`'s
 * anonymous users, ../myname.ts): in People, and at the door, so hosts know who knocks. */
import { InputDialog } from '@jupyterlab/apputils';
import React, { useEffect, useState } from 'react';

import { IRoomClient } from '../api';
import { cleanName, mayRename, rename } from '../myname';
import { IAction } from './action';

export function MyName(props: {
  /** The reader's name as the room shows it now. */
  current: string;
  client: IRoomClient;
  action: IAction;
}): JSX.Element | null {
  const { current, client, action } = props;
  const [allowed, setAllowed] = useState(false);
  useEffect(() => {
    let live = true;
    void mayRename().then(may => live && setAllowed(may));
    return () => {
      live = false;
    };
  }, []);
  if (!allowed) {
    return null;
  }
  const change = async () => {
    const asked = await InputDialog.getText({
      title: 'Your name in the room',
      label: 'Everyone in the room sees you by this name.',
      text: current,
      placeholder: 'Your name'
    });
    const name = asked.button.accept && asked.value ? cleanName(asked.value) : '';
    if (name) {
      await action.run(async () => {
        await rename(name);
        return client.room(); // the room checks the caller in: it hears the new name
      });
    }
  };
  return (
    <button
      type="button"
      className="jp-mod-styled jp-CopilotRoom-small jp-CopilotRoom-myName"
      disabled={action.busy}
      onClick={() => void change()}
    >
      Change my name…
    </button>
  );
}

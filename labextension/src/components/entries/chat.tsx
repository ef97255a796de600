/** Something a person said to the room: who and when, their Markdown rendered like a reply's
 * (sanitized, untrusted), styled apart from prompts, since the agent never reads it. */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React from 'react';

import { IChatEntry } from '../../entries';
import { IRoomModel } from '../../model';
import { displayName } from '../../names';
import { PersonName } from '../person';
import { QuoteButton } from '../quote';
import { Markdown } from './reply';
import { formatTime } from './time';

export function ChatEntry(props: {
  entry: IChatEntry;
  model: IRoomModel;
  rendermime: IRenderMimeRegistry;
}): JSX.Element {
  const { entry, model } = props;
  const person = model.person(entry.author);
  return (
    <div className="jp-CopilotRoom-entry jp-CopilotRoom-chat" data-entry-id={entry.id}>
      <div className="jp-CopilotRoom-entryHeader">
        <PersonName username={entry.author} person={person} />
        <span className="jp-CopilotRoom-chatLabel">to the room</span>
        <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
        <QuoteButton text={entry.body} who={displayName(entry.author, person)} model={model} />
      </div>
      <Markdown text={entry.body} rendermime={props.rendermime} />
    </div>
  );
}

/** A prompt whose turn started: who asked, for which skill or agent, and what it cost. */
import React from 'react';

import { IPromptEntry } from '../../entries';
import { IRoomModel } from '../../model';
import { targetLabel } from '../../policy';
import { PersonName } from '../person';
import { formatTime } from './time';

export function PromptEntry(props: { entry: IPromptEntry; model: IRoomModel }): JSX.Element {
  const { entry, model } = props;
  return (
    <div
      className="jp-CopilotRoom-entry jp-CopilotRoom-prompt"
      data-state={entry.state}
      data-entry-id={entry.id}
    >
      <div className="jp-CopilotRoom-entryHeader">
        <PersonName username={entry.author} person={model.person(entry.author)} />
        {entry.target && <span className="jp-CopilotRoom-badge">{targetLabel(entry.target)}</span>}
        <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
      </div>
      <div className="jp-CopilotRoom-promptText">{entry.body}</div>
      {entry.usage && (
        <div className="jp-CopilotRoom-usage">
          {entry.usage.model}: {entry.usage.input_tokens} in, {entry.usage.output_tokens} out
        </div>
      )}
    </div>
  );
}

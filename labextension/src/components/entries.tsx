/** One transcript entry, live, drawn by the component of its kind. Memoized: the list re-renders
 * when entries are added, an entry only when it changes itself (`useEntry`). */
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import React from 'react';

import { IEntrySource, IRoomModel } from '../model';
import { ChatEntry } from './entries/chat';
import { PlanEntry } from './entries/plan';
import { PromptEntry } from './entries/prompt';
import { ReasoningEntry } from './entries/reasoning';
import { ReplyEntry } from './entries/reply';
import { SteeringEntry } from './entries/steering';
import { RequestEntry } from './entries/request';
import { SubagentEntry } from './entries/subagent';
import { SystemEntry } from './entries/system';
import { ToolEntry } from './entries/tool';
import { useEntry } from './hooks';

function EntryRow(props: {
  source: IEntrySource;
  model: IRoomModel;
  rendermime: IRenderMimeRegistry;
}): JSX.Element {
  const { model, rendermime } = props;
  const entry = useEntry(props.source);
  switch (entry.kind) {
    case 'prompt':
      return <PromptEntry entry={entry} model={model} />;
    case 'chat':
      return <ChatEntry entry={entry} model={model} rendermime={rendermime} />;
    case 'assistant':
      return <ReplyEntry entry={entry} model={model} rendermime={rendermime} />;
    case 'reasoning':
      return <ReasoningEntry entry={entry} />;
    case 'tool':
      return <ToolEntry entry={entry} />;
    case 'subagent':
      return <SubagentEntry entry={entry} />;
    case 'plan':
      return <PlanEntry entry={entry} />;
    case 'permission':
    case 'question':
      return <RequestEntry entry={entry} model={model} />;
    case 'steering':
      return <SteeringEntry entry={entry} model={model} />;
    case 'system':
    case 'admission':
    case 'error':
      return <SystemEntry entry={entry} model={model} />;
  }
}

export const Entry = React.memo(EntryRow);

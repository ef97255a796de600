/** Side threads in the room's panel: the list in the header (everyone admitted sees that they
 * exist and whose they are; their people and the hosts open them), "Fork" on each finished turn,
 * and "from a side thread" on a prompt that brought one back. Opening and forking are the
 * page's (`index.ts`), handed down as `ThreadActions`. */
import React, { createContext, useContext } from 'react';

import { IPromptEntry } from '../entries';
import { FINISHED_PROMPT_STATES } from '../generated/declarations';
import { IRoomModel } from '../model';
import { maySubmit } from '../policy';
import { maySeeThread } from '../policy';
import { IThread } from '../types';
import { Name } from './person';

export interface IThreadActions {
  /** Fork a side thread after the turn of `promptId` (asks for its title). */
  fork(promptId: string): void;
  open(thread: IThread): void;
}

/** What the panel may do with threads; none in a thread's own view or a notebook's. */
export const ThreadActions = createContext<IThreadActions | null>(null);

export function ThreadList(props: { model: IRoomModel }): JSX.Element | null {
  const { model } = props;
  const actions = useContext(ThreadActions);
  const threads = model.meta.threads ?? [];
  if (threads.length === 0) {
    return null;
  }
  const open = threads.filter(thread => thread.state === 'open').length;
  return (
    <details className="jp-CopilotRoom-threads">
      <summary>
        Side threads ({open} open{threads.length > open ? `, ${threads.length - open} closed` : ''})
      </summary>
      <ul>
        {threads.map(thread => (
          <li key={thread.id} data-thread-id={thread.id} data-state={thread.state}>
            <span className="jp-CopilotRoom-threadTitle">{thread.title}</span>{' '}
            <span className="jp-CopilotRoom-threadOwner">
              by <Name username={thread.owner} model={model} />
            </span>
            {thread.state === 'closed' && <span className="jp-CopilotRoom-badge">closed</span>}
            {actions && maySeeThread(model.me, thread) && (
              <button
                type="button"
                className="jp-mod-styled jp-CopilotRoom-small"
                aria-label={`Open the side thread ${thread.title}`}
                onClick={() => actions.open(thread)}
              >
                Open
              </button>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}

const FINISHED: ReadonlySet<string> = new Set(FINISHED_PROMPT_STATES);

/** "Fork" on a finished turn, for those who may prompt. */
export function ForkButton(props: { entry: IPromptEntry; model: IRoomModel }): JSX.Element | null {
  const actions = useContext(ThreadActions);
  if (!actions || !FINISHED.has(props.entry.state) || !maySubmit(props.model.me)) {
    return null;
  }
  return (
    <button
      type="button"
      className="jp-mod-styled jp-CopilotRoom-small jp-CopilotRoom-fork"
      title="Fork a side thread from here: the conversation up to this turn, in a worktree of its own"
      aria-label="Fork a side thread from here"
      onClick={() => actions.fork(props.entry.id)}
    >
      Fork
    </button>
  );
}

/** "from a side thread": the prompt brought back what a thread found (or its changes). */
export function ThreadOrigin(props: {
  entry: IPromptEntry;
  model: IRoomModel;
}): JSX.Element | null {
  const id = props.entry.thread;
  if (!id) {
    return null;
  }
  const thread = (props.model.meta.threads ?? []).find(each => each.id === id);
  return (
    <span className="jp-CopilotRoom-origin jp-CopilotRoom-threadOrigin" data-thread-id={id}>
      (from the side thread {thread ? `“${thread.title}”` : id})
    </span>
  );
}

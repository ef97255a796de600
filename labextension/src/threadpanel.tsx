/** A side thread in a panel of its own (the main area): what it is and whose, what its owner
 * may do with it (promote as a diff or as a prompt, each with a preview; add a person; close
 * it), then the thread itself, drawn by the room's own components on the thread's document. */
import { Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { ReactWidget } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';
import React, { useEffect } from 'react';

import { refusalMessage } from './api';
import { DiffView } from './components/diffview';
import { useSignal } from './components/hooks';
import { Name } from './components/person';
import { Room } from './components/room';
import { mayJoinThread, mayManageThread } from './policy';
import { IOpenThread, lastReply } from './threads';
import { IParticipant, IThread } from './types';

export class ThreadPanel extends ReactWidget {
  constructor(options: { thread: IOpenThread; rendermime: IRenderMimeRegistry }) {
    super();
    this._options = options;
    this.addClass('jp-CopilotRoom');
    this.addClass('jp-CopilotRoom-threadPanel');
    this.title.closable = true;
  }

  dispose(): void {
    this._options.thread.dispose();
    super.dispose();
  }

  protected render(): JSX.Element {
    const { thread, rendermime } = this._options;
    return (
      <div className="jp-CopilotRoom-threadView">
        <ThreadBar thread={thread} onTitle={this._setTitle} />
        <Room
          switcher={<span className="jp-CopilotRoom-title">The thread&apos;s agent</span>}
          model={thread.model}
          client={thread.client}
          rendermime={rendermime}
          inputRef={this._input}
        />
      </div>
    );
  }

  private _setTitle = (title: string): void => {
    this.title.label = title;
  };
  private _options: { thread: IOpenThread; rendermime: IRenderMimeRegistry };
  private _input = React.createRef<HTMLTextAreaElement>();
}

/** What the thread is and what its owner may do with it, from the thread's own document
 * (`meta.thread`): the sidebar may show another room meanwhile. */
function ThreadBar(props: { thread: IOpenThread; onTitle: (title: string) => void }): JSX.Element {
  const { thread } = props;
  const model = thread.model;
  useSignal(model.changed);
  const entry = model.meta.thread;
  const me = model.me;
  const { onTitle } = props;
  const title = entry?.title;
  useEffect(() => {
    if (title) {
      onTitle(`Thread: ${title}`);
    }
  }, [title, onTitle]);
  if (!entry) {
    return <div className="jp-CopilotRoom-threadBar">Side thread</div>;
  }
  const owner = me?.username === entry.owner;
  const manager = mayManageThread(me, entry);
  const open = entry.state === 'open';
  return (
    <div className="jp-CopilotRoom-threadBar" data-state={entry.state}>
      <div className="jp-CopilotRoom-threadLine">
        <span className="jp-CopilotRoom-threadTitle">{entry.title}</span>
        <span className="jp-CopilotRoom-threadOwner">
          side thread of {thread.room} by <Name username={entry.owner} model={model} />
        </span>
        {!open && <span className="jp-CopilotRoom-badge">closed</span>}
      </div>
      <div className="jp-CopilotRoom-threadLine">
        {open && owner && (
          <>
            <button
              className="jp-mod-styled jp-CopilotRoom-small"
              onClick={() => void promoteAsDiff(thread, entry)}
            >
              Promote as diff…
            </button>
            <button
              className="jp-mod-styled jp-CopilotRoom-small"
              onClick={() => void promoteAsPrompt(thread, entry)}
            >
              Promote as prompt…
            </button>
          </>
        )}
        {open && manager && (
          <>
            <button
              className="jp-mod-styled jp-CopilotRoom-small"
              onClick={() => void addPerson(thread, entry)}
            >
              Add a person…
            </button>
            <button
              className="jp-mod-styled jp-CopilotRoom-small"
              onClick={() => void closeThread(thread, entry)}
            >
              Close thread…
            </button>
          </>
        )}
      </div>
    </div>
  );
}

async function promoteAsDiff(thread: IOpenThread, entry: IThread): Promise<void> {
  let changes: { diff: string; files: string[] };
  try {
    changes = await thread.threads.changes(thread.thread);
  } catch (error) {
    Notification.error(refusalMessage(error), { autoClose: 6000 });
    return;
  }
  if (changes.files.length === 0) {
    Notification.info('This thread has changed no file yet.', { autoClose: 5000 });
    return;
  }
  const result = await showDialog({
    title: `Promote “${entry.title}” as a diff`,
    body: (
      <div className="jp-CopilotRoom-promotePreview">
        <p>
          These changes become one card in the room. A host approves it (two hosts other than you
          under the room&apos;s &ldquo;two approvers&rdquo; policy); you approve it yourself only as
          a host. Once approved, they are applied to the shared files as one turn, which can be
          reverted like any other.
        </p>
        <DiffView diff={changes.diff} />
      </div>
    ),
    buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Send the card' })]
  });
  if (result.button.accept) {
    await run(() => thread.threads.promote(thread.thread, 'diff'), 'The card waits in the room.');
  }
}

class PromptPreview extends Widget {
  constructor(reply: string) {
    super();
    this.addClass('jp-CopilotRoom-promotePreview');
    const label = document.createElement('label');
    label.textContent = 'Your words to the room (the thread’s last reply follows them):';
    this._text.className = 'jp-mod-styled';
    this._text.rows = 3;
    this._text.placeholder = 'e.g. We tried polars in a side thread; adopt it:';
    label.appendChild(this._text);
    const said = document.createElement('pre');
    said.className = 'jp-CopilotRoom-result';
    said.textContent = reply;
    this.node.append(label, said);
  }

  getValue(): string {
    return this._text.value;
  }

  private _text = document.createElement('textarea');
}

async function promoteAsPrompt(thread: IOpenThread, entry: IThread): Promise<void> {
  const reply = lastReply(thread.model);
  if (!reply) {
    Notification.info('The thread has no reply to bring back yet.', { autoClose: 5000 });
    return;
  }
  const result = await showDialog({
    title: `Promote “${entry.title}” as a prompt`,
    body: new PromptPreview(reply),
    buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Queue in the room' })]
  });
  if (result.button.accept) {
    const text = result.value ?? '';
    await run(() => thread.threads.promote(thread.thread, 'prompt', text), 'Queued in the room.');
  }
}

async function addPerson(thread: IOpenThread, entry: IThread): Promise<void> {
  let people: IParticipant[];
  try {
    people = await thread.threads.roomPeople();
  } catch (error) {
    Notification.error(refusalMessage(error), { autoClose: 6000 });
    return;
  }
  const candidates = people.filter(person => mayJoinThread(person, entry));
  if (candidates.length === 0) {
    Notification.info('Every member of the room is in this thread already.', { autoClose: 5000 });
    return;
  }
  const select = document.createElement('select');
  select.className = 'jp-mod-styled';
  for (const person of candidates) {
    select.append(new Option(person.display_name || person.username, person.username));
  }
  const body = new Widget({ node: select });
  const result = await showDialog({
    title: `Add a person to “${entry.title}”`,
    body,
    buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Add' })]
  });
  if (result.button.accept) {
    await run(() => thread.threads.addPerson(thread.thread, select.value), 'Added.');
  }
}

async function closeThread(thread: IOpenThread, entry: IThread): Promise<void> {
  const result = await showDialog({
    title: `Close “${entry.title}”?`,
    body: 'Its worktree and branch are removed; its transcript is kept.',
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Close thread' })]
  });
  if (result.button.accept) {
    await run(() => thread.threads.close(thread.thread), 'The thread is closed.');
  }
}

async function run(action: () => Promise<unknown>, done: string): Promise<void> {
  try {
    await action();
    Notification.success(done, { autoClose: 4000 });
  } catch (error) {
    Notification.error(refusalMessage(error), { autoClose: 8000 });
  }
}

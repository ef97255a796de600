/** "Changed N files" on a turn whose files the room checkpointed: the files, their diff in a
 * dialog, and "Revert this turn" for those the server allows (hosts; the author if allowed). */
import { Dialog, Notification, showDialog } from '@jupyterlab/apputils';
import React, { useState } from 'react';

import { RoomAPIError, refusalMessage } from '../api';
import { changedLabel, revertQuestion, unnamedLine } from '../checkpoints';
import { ICheckpoint } from '../entries';
import { IRoomModel } from '../model';
import { mayRevert, mayRevertAnyway } from '../policy';
import { DiffView } from './diffview';
import { useRoomClient } from './roomclient';

export function CheckpointLine(props: {
  checkpoint: ICheckpoint;
  author: string;
  revertedBy?: string;
  model: IRoomModel;
}): JSX.Element {
  const { checkpoint, author, revertedBy, model } = props;
  const [busy, setBusy] = useState(false);
  const client = useRoomClient();
  const label = changedLabel(checkpoint.files);

  const showDiff = async () => {
    try {
      const { diff } = await client.checkpointDiff(checkpoint.commit);
      await showDialog({
        title: `${label} (${checkpoint.commit.slice(0, 8)})`,
        body: <DiffView diff={diff} className="jp-CopilotRoom-checkpointDiff" />,
        buttons: [Dialog.okButton({ label: 'Close' })]
      });
    } catch (err) {
      Notification.error(refusalMessage(err), { autoClose: 5000 });
    }
  };

  const revert = async () => {
    const answer = await showDialog({
      title: 'Revert this turn?',
      body: revertQuestion(checkpoint.files),
      buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Revert' })]
    });
    if (!answer.button.accept) {
      return;
    }
    setBusy(true);
    try {
      try {
        await client.revertCheckpoint(checkpoint.commit);
      } catch (err) {
        // Someone edited the turn's cells since: a host may revert anyway, having read which.
        if (!(err instanceof RoomAPIError && err.code === 'revert_conflict' && isHost(model))) {
          throw err;
        }
        const anyway = await showDialog({
          title: 'Revert anyway?',
          body: `${err.message} Reverting anyway puts those cells back as they were before the turn: what was typed in them since goes.`,
          buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Revert anyway' })]
        });
        if (!anyway.button.accept) {
          return;
        }
        await client.revertCheckpoint(checkpoint.commit, true);
      }
      Notification.success('The turn was reverted.', { autoClose: 3000 });
    } catch (err) {
      Notification.error(refusalMessage(err), { autoClose: 8000 });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="jp-CopilotRoom-checkpoint" data-commit={checkpoint.commit}>
      <span className="jp-CopilotRoom-checkpointFiles" title={checkpoint.files.join('\n')}>
        {label}: {checkpoint.files.join(', ')}
      </span>
      {checkpoint.unnamed?.length ? (
        <span className="jp-CopilotRoom-checkpointUnnamed">
          ({unnamedLine(checkpoint.unnamed)})
        </span>
      ) : null}
      {revertedBy && <span className="jp-CopilotRoom-checkpointReverted">(reverted)</span>}
      <span className="jp-CopilotRoom-checkpointActions">
        <button
          type="button"
          className="jp-mod-styled jp-CopilotRoom-small jp-CopilotRoom-checkpointButton"
          onClick={() => void showDiff()}
        >
          Diff
        </button>
        {!revertedBy && mayRevert(model.me, author) && (
          <button
            type="button"
            className="jp-mod-styled jp-CopilotRoom-small jp-CopilotRoom-checkpointButton"
            disabled={busy}
            onClick={() => void revert()}
          >
            Revert this turn
          </button>
        )}
      </span>
    </div>
  );
}

function isHost(model: IRoomModel): boolean {
  return mayRevertAnyway(model.me);
}

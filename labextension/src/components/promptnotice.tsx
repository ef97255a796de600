/**
 * The line under the prompt box: what it last told its reader, either the prompt it follows
 * (its place in the queue, kept true from the live queue: ../notice.ts) or a local answer
 * (`/skills`, `/agents`, `/refresh`).
 */
import React from 'react';

import { IRoomModel } from '../model';
import { promptNotice } from '../notice';

/** What the box last told its reader: which of their prompts it follows, or a local answer. */
export type Notice = { prompt: string } | { text: string } | null;

/** The notice, kept true: derived from the live queue on every change (../notice.ts). */
export function NoticeLine(props: {
  notice: Notice;
  model: IRoomModel;
  onDismiss: () => void;
}): JSX.Element | null {
  const { notice, model, onDismiss } = props;
  let text = '';
  if (notice && 'prompt' in notice) {
    text = promptNotice(model.queue, notice.prompt);
  } else if (notice) {
    text = notice.text;
  }
  if (!text) {
    return null;
  }
  return (
    <div className="jp-CopilotRoom-notice" role="status">
      <span className="jp-CopilotRoom-noticeText">{text}</span>
      <button
        className="jp-mod-styled jp-CopilotRoom-small"
        aria-label="Dismiss"
        onClick={onDismiss}
      >
        ×
      </button>
    </div>
  );
}

/** A prompt whose turn started: who asked, for which skill or agent, where when not in the
 * panel (./link.tsx), and what they wrote. Its fenced code blocks (```) show as code, with a
 * copy button, and its code spans (`df`) as inline code; a long prompt is collapsed. What
 * the turn cost is shown under the turn's last reply (./reply.tsx). */
import React from 'react';

import { IPromptEntry } from '../../entries';
import { IRoomModel } from '../../model';
import { targetLabel } from '../../policy';
import { splitCodeSpans, splitFences } from '../../fences';
import { AttachmentList } from '../attachments';
import { CheckpointLine } from '../checkpoint';
import { ChipList } from '../chips';
import { PersonName } from '../person';
import { ForkButton, ThreadOrigin } from '../threads';
import { Collapsible } from './collapse';
import { CopyButton } from './copy';
import { PromptLink, PromptOrigin } from './link';
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
        <PromptOrigin origin={entry.origin} link={entry.link} />
        <ThreadOrigin entry={entry} model={model} />
        {entry.target && <span className="jp-CopilotRoom-badge">{targetLabel(entry.target)}</span>}
        <PromptLink link={entry.link} />
        <time className="jp-CopilotRoom-time">{formatTime(entry.ts)}</time>
        <ForkButton entry={entry} model={model} />
      </div>
      <ChipList chips={entry.chips} />
      <AttachmentList attachments={entry.attachments} />
      <Collapsible text={entry.body} what="prompt">
        <div className="jp-CopilotRoom-promptText">
          {splitFences(entry.body).map((part, n) =>
            part.code ? (
              <div className="jp-CopilotRoom-codeBlock" key={n}>
                <div className="jp-CopilotRoom-codeBar">
                  <CopyButton text={part.text} label="Copy this code" />
                </div>
                <pre className="jp-CopilotRoom-code">
                  <code>{part.text}</code>
                </pre>
              </div>
            ) : (
              <span key={n}>
                {splitCodeSpans(part.text).map((span, m) =>
                  span.code ? (
                    <code className="jp-CopilotRoom-codeSpan" key={m}>
                      {span.text}
                    </code>
                  ) : (
                    span.text
                  )
                )}
              </span>
            )
          )}
        </div>
      </Collapsible>
      {entry.checkpoint && (
        <CheckpointLine
          checkpoint={entry.checkpoint}
          author={entry.author}
          revertedBy={entry.reverted_by}
          model={model}
        />
      )}
    </div>
  );
}

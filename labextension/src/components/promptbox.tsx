/**
 * The prompt box, with two destinations: "Ask Copilot" (Enter) queues a prompt for the agent,
 * "Say to the room" (Alt+Enter) is a chat message people read and the agent never does (viewers
 * have only this one, while hosts allow it). Shift+Enter is a new line; Stop aborts the running turn
 * for those who may. Typing `/` at the start picks a skill and `@` a custom agent from the
 * repository's catalog (arrows, Enter or Tab, Escape). `/skills`, `/agents` and `/refresh` are
 * answered here, for this reader only, never in the transcript (./promptnotice.tsx). Near the
 * room's `max_prompt_chars` a counter shows how much is left (./counter.tsx). One toolbar row
 * under the text: the "Attach" menu (./attach.tsx) adds context chips (what the reader is
 * looking at, ../chips.ts), images ("Image…"; pasted or dropped ones too) and repository files
 * ("Repository file…"), shown above the text until it is sent; the send buttons sit right, with short labels when narrow,
 * and the box's placeholder drops the keys it has no lines for (./fittingplaceholder.ts).
 */
import React, { useCallback, useEffect, useState } from 'react';

import { IRoomClient } from '../api';
import { contextTray } from '../chips';
import { IRoomModel } from '../model';
import { agentName } from '../names';
import {
  isRunning,
  mayAbort,
  mayChat,
  maySubmit,
  sigil,
  targetLabel,
  whyNoPrompt
} from '../policy';
import { IPromptDraft } from '../room';
import { ICatalog, ICatalogItem, ITarget } from '../types';
import { Refusal, useAction } from './action';
import { AttachMenuButton } from './attach';
import { DraftAttachments, filesOf, useDraftAttachments } from './attachments';
import { TrayChips } from './chips';
import { CharacterCounter, usePromptLimit } from './counter';
import { placeholders, useFittingPlaceholder } from './fittingplaceholder';
import { LOCAL_COMMANDS, Picker, pickerFor } from './picker';
import { Notice, NoticeLine } from './promptnotice';
import { useQuotesInto } from './quote';

export function PromptBox(props: {
  model: IRoomModel;
  client: IRoomClient;
  inputRef: React.RefObject<HTMLTextAreaElement>;
  /** Where what the reader types is kept while they are in another room. */
  draft?: IPromptDraft;
}): JSX.Element {
  const { model, client, inputRef } = props;
  const action = useAction();
  const [text, setText] = useState(props.draft?.text ?? '');
  const kept = props.draft;
  useEffect(() => {
    if (kept) {
      kept.text = text;
    }
  }, [kept, text]);
  const [target, setTarget] = useState<ITarget | null>(null);
  const [catalog, setCatalog] = useState<ICatalog>({ skills: [], agents: [] });
  const [highlight, setHighlight] = useState(0);
  const [notice, setNotice] = useState<Notice>(null);
  const stop = useAction();
  const draft = useDraftAttachments(client);
  // "Quote into prompt" in the transcript adds to what this reader is typing (../quote.ts).
  useQuotesInto(setText, inputRef);

  const loadCatalog = useCallback(async () => {
    try {
      setCatalog(await client.catalog());
      return true;
    } catch {
      return false; // the pickers stay empty; sending still works
    }
  }, [client]);
  useEffect(() => {
    void loadCatalog();
  }, [loadCatalog]);
  const [maxChars, loadLimit] = usePromptLimit(client);
  // `/` and `@` pick targets for prompts: not for someone who may only chat.
  const picker = maySubmit(model.me) ? pickerFor(text, catalog) : null;
  const running = model.queue.find(isRunning);
  useEffect(() => setHighlight(0), [picker?.query, picker?.kind]);

  const asks = maySubmit(model.me);
  const chats = mayChat(model.me);
  // A side thread's own document says it is one: what is said there is said in the thread.
  const where = model.meta.thread ? 'the thread' : 'the room';
  const agent = agentName(model.meta.name !== 'copilot' ? model.meta.title : null);
  const shownPlaceholder = useFittingPlaceholder(inputRef, placeholders(asks, chats, where, agent));
  if (!asks && !chats) {
    return (
      <div className="jp-CopilotRoom-promptBox jp-mod-disabled">
        <textarea
          className="jp-CopilotRoom-input"
          disabled
          aria-label="Prompt (disabled)"
          placeholder="Prompting is not open to you in this room."
        />
        <div className="jp-CopilotRoom-reason">{whyNoPrompt(model.me)}</div>
      </div>
    );
  }

  const choose = (item: ICatalogItem, kind: ITarget['kind']) => {
    setTarget({ kind, name: item.name });
    setText(text.replace(/^[/@]\S*\s?/, ''));
    inputRef.current?.focus();
  };

  const local = async (command: string) => {
    setText('');
    if (command === '/refresh') {
      setNotice({
        text: (await loadCatalog())
          ? 'The catalog was read again.'
          : 'The catalog could not be read; try /refresh again.'
      });
      return;
    }
    const kind = command === '/skills' ? 'skill' : 'agent';
    const items = kind === 'skill' ? catalog.skills : catalog.agents;
    setNotice({
      text: items.length
        ? items.map(i => `${sigil(kind)}${i.name}: ${i.description}`).join('\n')
        : `This repository has no ${command.slice(1)}.`
    });
  };

  const send = async () => {
    const trimmed = text.trim();
    if (LOCAL_COMMANDS.includes(trimmed)) {
      return local(trimmed);
    }
    if (!trimmed || action.busy || draft.uploading) {
      return;
    }
    const chips = contextTray.chips;
    const sent = await action.run(() => client.submit(text, target, chips, draft.refs()));
    if (sent) {
      model.markSent();
      setText('');
      setTarget(null);
      contextTray.clear();
      draft.clear();
      setNotice({ prompt: sent.id });
    } else {
      void loadLimit();
    }
  };

  /** "Say to the room": a chat message, never queued, never read by the agent. */
  const say = async () => {
    if (!text.trim() || action.busy) {
      return;
    }
    if (await action.run(() => client.say(text))) {
      model.markSent();
      setText('');
      setNotice(null);
    } else {
      void loadLimit();
    }
  };

  const onKeyDown = (event: React.KeyboardEvent<HTMLTextAreaElement>) => {
    if (picker && picker.items.length > 0) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        const step = event.key === 'ArrowDown' ? 1 : -1;
        setHighlight((highlight + step + picker.items.length) % picker.items.length);
        return;
      }
      if (event.key === 'Enter' || event.key === 'Tab') {
        event.preventDefault();
        choose(picker.items[highlight], picker.kind);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setText(text.replace(/^[/@]/, ''));
        return;
      }
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault();
      void ((event.altKey && chats) || !asks ? say() : send());
    }
  };

  return (
    <div
      className="jp-CopilotRoom-promptBox"
      onDragOver={event =>
        asks && event.dataTransfer.types.includes('Files') && event.preventDefault()
      }
      onDrop={event => {
        if (asks && event.dataTransfer.files.length) {
          event.preventDefault();
          draft.addImages(filesOf(event.dataTransfer));
        }
      }}
    >
      {picker && (
        <Picker
          picker={picker}
          highlight={highlight}
          onChoose={item => choose(item, picker.kind)}
        />
      )}
      {target && (
        <div className="jp-CopilotRoom-target">
          <span>
            For {target.kind === 'skill' ? 'the skill' : 'the custom agent'}{' '}
            <strong>{targetLabel(target)}</strong>
          </span>
          <button
            className="jp-mod-styled jp-CopilotRoom-small"
            aria-label="Remove the target"
            onClick={() => setTarget(null)}
          >
            ×
          </button>
        </div>
      )}
      <TrayChips tray={contextTray} />
      <DraftAttachments draft={draft} />
      <textarea
        ref={inputRef}
        className="jp-CopilotRoom-input"
        aria-label="Prompt for the agent"
        placeholder={shownPlaceholder}
        value={text}
        rows={3}
        onChange={event => setText(event.target.value)}
        onKeyDown={onKeyDown}
        onPaste={event => {
          const files = filesOf(event.clipboardData);
          if (asks && files.length) {
            event.preventDefault(); // an image, not its name as text
            draft.addImages(files);
          }
        }}
      />
      <div className="jp-CopilotRoom-promptActions">
        {asks && (
          <AttachMenuButton
            tray={contextTray}
            draft={draft}
            onAttached={() => inputRef.current?.focus()}
          />
        )}
        <CharacterCounter length={text.length} max={maxChars} />
        {running && mayAbort(model.me, running) && (
          <button
            type="button"
            className="jp-mod-styled jp-mod-reject"
            aria-label="Stop the running turn"
            title="Stop the running turn (abort)"
            disabled={stop.busy || model.meta.state === 'aborting'}
            onClick={() => void stop.run(() => client.abort())}
          >
            Stop
          </button>
        )}
        <span className="jp-CopilotRoom-destinations">
          {chats && (
            <button
              type="button"
              className="jp-mod-styled jp-CopilotRoom-say"
              aria-label={`Say to ${where} (people read it, the agent does not)`}
              title={`Say to ${where}: people read it, the agent does not (Alt+Enter)`}
              disabled={!text.trim() || action.busy}
              onClick={() => void say()}
            >
              <span className="jp-CopilotRoom-long">Say to {where}</span>
              <span className="jp-CopilotRoom-short">Say</span>
            </button>
          )}
          {asks && (
            <button
              type="button"
              className="jp-mod-styled jp-mod-accept"
              aria-label={`Ask ${agent}: send the prompt to the agent's queue`}
              title={
                draft.uploading
                  ? 'Waiting for the images to upload'
                  : `Ask ${agent} (Enter; Shift+Enter for a new line)`
              }
              disabled={!text.trim() || action.busy || draft.uploading}
              onClick={() => void send()}
            >
              <span className="jp-CopilotRoom-long">Ask {agent}</span>
              <span className="jp-CopilotRoom-short">Ask</span>
            </button>
          )}
        </span>
      </div>
      <Refusal action={action} />
      <Refusal action={stop} />
      <NoticeLine notice={notice} model={model} onDismiss={() => setNotice(null)} />
    </div>
  );
}

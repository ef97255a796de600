/**
 * The prompt box, with two destinations: "Ask Copilot" (Enter) queues a prompt for the agent,
 * "Say to the room" (Alt+Enter) is a chat message people read and the agent never does (viewers
 * have only this one, while hosts allow it). Shift+Enter is a new line; Stop aborts the running turn
 * for those who may. Typing `/` at the start picks a skill and `@` a custom agent from the
 * repository's catalog (arrows, Enter or Tab, Escape). `/skills`, `/agents` and `/refresh` are
 * answered here, for this reader only, never in the transcript. Near the room's
 * `max_prompt_chars` a counter shows how much is left. One toolbar row under the text: the
 * "Attach" menu (./attach.tsx) adds context chips (what the reader is looking at, ../chips.ts),
 * images ("Image…"; pasted or dropped ones too) and repository files ("Repository file…"), shown
 * above the text until it is sent; the send buttons sit right, with short labels when narrow,
 * and the box's placeholder drops the keys it has no lines for (the buttons' tooltips keep them).
 */
import React, {
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useState
} from 'react';

import { IRoomClient } from '../api';
import { contextTray } from '../chips';
import { IRoomModel } from '../model';
import { agentName } from '../names';
import { promptNotice } from '../notice';
import {
  isRunning,
  mayAbort,
  mayChat,
  maySubmit,
  sigil,
  targetLabel,
  whyNoPrompt
} from '../policy';
import { withQuote } from '../quote';
import { IPromptDraft } from '../room';
import { ICatalog, ICatalogItem, ITarget } from '../types';
import { Refusal, useAction } from './action';
import { AttachMenuButton } from './attach';
import { DraftAttachments, filesOf, useDraftAttachments } from './attachments';
import { TrayChips } from './chips';
import { LOCAL_COMMANDS, Picker, pickerFor } from './picker';
import { QuoteContext } from './quote';

/** What the box last told its reader: which of their prompts it follows, or a local answer. */
type Notice = { prompt: string } | { text: string } | null;

/** The counter shows from this share of `max_prompt_chars` on. */
export const COUNTER_FROM = 0.8;

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
  const [maxChars, setMaxChars] = useState<number | null>(null);
  const stop = useAction();
  const draft = useDraftAttachments(client);
  // "Quote into prompt" in the transcript adds to what this reader is typing (../quote.ts).
  const quotes = useContext(QuoteContext);
  useEffect(() => {
    if (!quotes) {
      return;
    }
    const take = (_: unknown, quote: string) => {
      setText(typed => withQuote(typed, quote));
      inputRef.current?.focus();
    };
    quotes.quoted.connect(take);
    return () => {
      quotes.quoted.disconnect(take);
    };
  }, [quotes, inputRef]);

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
  // The limit as the room has it now: read when the box opens and after a refused send.
  const loadLimit = useCallback(async () => {
    try {
      setMaxChars((await client.settings()).max_prompt_chars);
    } catch {
      setMaxChars(null); // no counter; the room still refuses a prompt that is too long
    }
  }, [client]);
  useEffect(() => {
    void loadLimit();
  }, [loadLimit]);

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

/** What the box may say before anything is typed, longest first: where Enter sends it. */
function placeholders(asks: boolean, chats: boolean, where: string, agent: string): string[] {
  if (!asks) {
    return [
      `Say something to ${where}… (Enter says it; the agent does not read it)`,
      `Say something to ${where}…`
    ];
  }
  const chat = chats ? `, Alt+Enter says it to ${where}` : '';
  return [
    `Ask ${agent}… (Enter asks${chat}, Shift+Enter for a new line, / skills, @ agents)`,
    `Ask ${agent}… (Enter asks, / skills, @ agents)`,
    `Ask ${agent}…`
  ];
}

/** The first of `texts` the text area shows whole as its placeholder, measured again whenever
 * the area changes size: a placeholder's lines beyond the area's are cut off mid-sentence. */
function useFittingPlaceholder(
  area: React.RefObject<HTMLTextAreaElement>,
  texts: string[]
): string {
  const [fitting, setFitting] = useState(0);
  const latest = useRef(texts);
  latest.current = texts;
  const key = texts.join('\n');
  useLayoutEffect(() => {
    const node = area.current;
    if (!node) {
      return;
    }
    const sizes = new ResizeObserver(() => setFitting(firstFitting(node, latest.current)));
    sizes.observe(node);
    return () => sizes.disconnect();
  }, [area, key]);
  return texts[Math.min(fitting, texts.length - 1)];
}

/** The index of the first of `texts` whose lines, wrapped as `area` wraps them, fit its height
 * (the last one if none does). */
function firstFitting(area: HTMLTextAreaElement, texts: string[]): number {
  const style = getComputedStyle(area);
  const copy = document.createElement('div');
  for (const name of [
    'font',
    'letterSpacing',
    'lineHeight',
    'wordBreak',
    'overflowWrap'
  ] as const) {
    copy.style[name] = style[name];
  }
  const width = area.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  Object.assign(copy.style, {
    position: 'fixed',
    visibility: 'hidden',
    whiteSpace: 'pre-wrap',
    width: `${width}px`
  });
  const height = area.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  document.body.appendChild(copy);
  const found = texts.findIndex(text => {
    copy.textContent = text;
    return copy.offsetHeight <= height + 1;
  });
  copy.remove();
  return found === -1 ? texts.length - 1 : found;
}

/** How many characters are left, shown once the text nears the limit. */
function CharacterCounter(props: { length: number; max: number | null }): JSX.Element | null {
  const { length, max } = props;
  if (max === null || length < max * COUNTER_FROM) {
    return null;
  }
  const over = length > max;
  return (
    <span className="jp-CopilotRoom-counter" data-over={over} role="status">
      {length.toLocaleString('en')} / {max.toLocaleString('en')}
      {over && ' (too long)'}
    </span>
  );
}

/** The notice, kept true: derived from the live queue on every change (../notice.ts). */
function NoticeLine(props: {
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

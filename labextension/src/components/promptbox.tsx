/**
 * The prompt box: Enter sends, Shift+Enter is a new line. Typing `/` at the start picks a skill
 * and `@` a custom agent from the repository's catalog (arrows, Enter or Tab, Escape). `/skills`,
 * `/agents` and `/refresh` are answered here, for this reader only, never in the transcript.
 */
import React, { useEffect, useState } from 'react';

import { RoomAPIError } from '../api';
import { RoomModel } from '../model';
import { ICatalog, ICatalogItem } from '../types';

type Target = { kind: 'skill' | 'agent'; name: string };

const LOCAL_COMMANDS = ['/skills', '/agents', '/refresh'];

const DISABLED: Record<string, string> = {
  viewer: 'Viewers watch the room; ask a host to make you a member to send prompts.',
  pending: 'You are waiting for a host to let you in.',
  refused: 'You are not admitted to this room.'
};

export function PromptBox(props: {
  model: RoomModel;
  inputRef: React.RefObject<HTMLTextAreaElement>;
}): JSX.Element {
  const { model, inputRef } = props;
  const [text, setText] = useState('');
  const [target, setTarget] = useState<Target | null>(null);
  const [catalog, setCatalog] = useState<ICatalog>({ skills: [], agents: [] });
  const [highlight, setHighlight] = useState(0);
  const [notice, setNotice] = useState<string>('');
  const [busy, setBusy] = useState(false);

  const loadCatalog = async () => {
    try {
      setCatalog(await model.catalog());
    } catch {
      // the pickers stay empty; sending still works
    }
  };
  useEffect(() => {
    void loadCatalog();
  }, [model]);

  const picker = pickerFor(text, catalog);
  useEffect(() => setHighlight(0), [picker?.query, picker?.kind]);

  const role = model.me?.role ?? 'pending';
  if (!model.can('submit')) {
    return (
      <div className="jp-CopilotRoom-promptBox jp-mod-disabled">
        <textarea
          className="jp-CopilotRoom-input"
          disabled
          aria-label="Prompt (disabled)"
          placeholder="Prompting is not open to you in this room."
        />
        <div className="jp-CopilotRoom-reason">{DISABLED[role]}</div>
      </div>
    );
  }

  const choose = (item: ICatalogItem, kind: 'skill' | 'agent') => {
    setTarget({ kind, name: item.name });
    setText(text.replace(/^[/@]\S*\s?/, ''));
    inputRef.current?.focus();
  };

  const local = async (command: string) => {
    if (command === '/refresh') {
      await loadCatalog();
      setNotice('The catalog was read again.');
    } else {
      const items = command === '/skills' ? catalog.skills : catalog.agents;
      const sigil = command === '/skills' ? '/' : '@';
      setNotice(
        items.length
          ? items.map(i => `${sigil}${i.name}: ${i.description}`).join('\n')
          : `This repository has no ${command.slice(1)}.`
      );
    }
    setText('');
  };

  const send = async () => {
    const trimmed = text.trim();
    if (LOCAL_COMMANDS.includes(trimmed)) {
      return local(trimmed);
    }
    if (!trimmed || busy) {
      return;
    }
    setBusy(true);
    try {
      const { position } = await model.submit(text, target);
      setText('');
      setTarget(null);
      setNotice(
        position === 0
          ? 'Your prompt is next.'
          : `Your prompt is queued: ${position} ahead of it.`
      );
    } catch (error) {
      setNotice(error instanceof RoomAPIError ? error.message : String(error));
    } finally {
      setBusy(false);
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
      void send();
    }
  };

  return (
    <div className="jp-CopilotRoom-promptBox">
      {picker && (
        <ul
          className="jp-CopilotRoom-picker"
          role="listbox"
          aria-label={picker.kind === 'skill' ? 'Skills' : 'Custom agents'}
        >
          {picker.items.length === 0 && (
            <li className="jp-CopilotRoom-note">
              No {picker.kind === 'skill' ? 'skill' : 'custom agent'} matches.
            </li>
          )}
          {picker.items.map((item, index) => (
            <li
              key={item.name}
              role="option"
              aria-selected={index === highlight}
              className={index === highlight ? 'jp-mod-active' : ''}
              onMouseDown={event => {
                event.preventDefault();
                choose(item, picker.kind);
              }}
            >
              <strong>
                {picker.kind === 'skill' ? '/' : '@'}
                {item.name}
              </strong>{' '}
              <span className="jp-CopilotRoom-note">{item.description}</span>
            </li>
          ))}
        </ul>
      )}
      {target && (
        <div className="jp-CopilotRoom-target">
          For {target.kind === 'skill' ? 'the skill' : 'the custom agent'}{' '}
          <strong>
            {target.kind === 'skill' ? '/' : '@'}
            {target.name}
          </strong>
          <button
            className="jp-mod-styled jp-CopilotRoom-small"
            aria-label="Remove the target"
            onClick={() => setTarget(null)}
          >
            ×
          </button>
        </div>
      )}
      <textarea
        ref={inputRef}
        className="jp-CopilotRoom-input"
        aria-label="Prompt for the agent"
        placeholder="Ask the agent… (Enter sends, Shift+Enter for a new line, / skills, @ agents)"
        value={text}
        rows={3}
        onChange={event => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {notice && (
        <div className="jp-CopilotRoom-notice" role="status">
          {notice}
          <button
            className="jp-mod-styled jp-CopilotRoom-small"
            aria-label="Dismiss"
            onClick={() => setNotice('')}
          >
            ×
          </button>
        </div>
      )}
    </div>
  );
}

function pickerFor(
  text: string,
  catalog: ICatalog
): { kind: 'skill' | 'agent'; query: string; items: ICatalogItem[] } | null {
  const match = /^([/@])(\S*)$/.exec(text);
  if (!match || LOCAL_COMMANDS.includes(text)) {
    return null;
  }
  const kind = match[1] === '/' ? 'skill' : 'agent';
  const query = match[2].toLowerCase();
  const items = (kind === 'skill' ? catalog.skills : catalog.agents).filter(item =>
    item.name.toLowerCase().includes(query)
  );
  return { kind, query, items };
}

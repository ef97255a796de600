/** The `/` skill and `@` custom agent picker above the prompt box. */
import React from 'react';

import { kindOfSigil, sigil, TargetKind } from '../policy';
import { ICatalog, ICatalogItem } from '../types';

/** Answered in the reader's own panel, never sent to the agent. */
export const LOCAL_COMMANDS = ['/skills', '/agents', '/refresh'];

export interface IPickerState {
  kind: TargetKind;
  query: string;
  items: ICatalogItem[];
}

/** The picker `text` opens: a lone `/word` or `@word` at the start of the box. */
export function pickerFor(text: string, catalog: ICatalog): IPickerState | null {
  const match = /^([/@])(\S*)$/.exec(text);
  const kind = match && kindOfSigil(match[1]);
  if (!match || !kind || LOCAL_COMMANDS.includes(text)) {
    return null;
  }
  const query = match[2].toLowerCase();
  const items = (kind === 'skill' ? catalog.skills : catalog.agents).filter(item =>
    item.name.toLowerCase().includes(query)
  );
  return { kind, query, items };
}

export function Picker(props: {
  picker: IPickerState;
  highlight: number;
  onChoose: (item: ICatalogItem) => void;
}): JSX.Element {
  const { picker, highlight, onChoose } = props;
  const noun = picker.kind === 'skill' ? 'skill' : 'custom agent';
  return (
    <ul
      className="jp-CopilotRoom-picker"
      role="listbox"
      aria-label={picker.kind === 'skill' ? 'Skills' : 'Custom agents'}
    >
      {picker.items.length === 0 && <li className="jp-CopilotRoom-note">No {noun} matches.</li>}
      {picker.items.map((item, index) => (
        <li
          key={item.name}
          role="option"
          aria-selected={index === highlight}
          className={index === highlight ? 'jp-mod-active' : ''}
          onMouseDown={event => {
            event.preventDefault();
            onChoose(item);
          }}
        >
          <strong>
            {sigil(picker.kind)}
            {item.name}
          </strong>{' '}
          <span className="jp-CopilotRoom-note">{item.description}</span>
        </li>
      ))}
    </ul>
  );
}

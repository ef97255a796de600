/** Context chips: on a prompt in the transcript (everyone sees what it pointed at), on the prompt
 * being written (removable), and the "Attach" menu of what JupyterLab offers now (../chips.ts). */
import React, { useEffect, useReducer, useRef, useState } from 'react';

import { chipLabel, chipTitle, ContextTray, IChip, IOffer, IShownChip } from '../chips';

/** The chips a prompt carried, read-only. */
export function ChipList(props: { chips?: IShownChip[] }): JSX.Element | null {
  const { chips } = props;
  if (!chips?.length) {
    return null;
  }
  return (
    <ul className="jp-CopilotRoom-chips" aria-label="Attached context">
      {chips.map((chip, n) => (
        <li key={n} className="jp-CopilotRoom-chip" data-kind={chip.kind} title={chipTitle(chip)}>
          <span className="jp-CopilotRoom-chipLabel">{chipLabel(chip)}</span>
        </li>
      ))}
    </ul>
  );
}

/** Re-renders whenever the tray changes. */
export function useTray(tray: ContextTray): readonly IChip[] {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    tray.changed.connect(bump);
    return () => {
      tray.changed.disconnect(bump);
    };
  }, [tray]);
  return tray.chips;
}

/** The chips of the prompt being written, each with a remove button. */
export function TrayChips(props: { tray: ContextTray }): JSX.Element | null {
  const chips = useTray(props.tray);
  if (!chips.length) {
    return null;
  }
  return (
    <ul className="jp-CopilotRoom-chips" aria-label="Context attached to your next prompt">
      {chips.map((chip, n) => (
        <li key={n} className="jp-CopilotRoom-chip" data-kind={chip.kind} title={chipTitle(chip)}>
          <span className="jp-CopilotRoom-chipLabel">{chipLabel(chip)}</span>
          <button
            type="button"
            className="jp-CopilotRoom-chipRemove"
            aria-label={`Remove ${chipLabel(chip)}`}
            onClick={() => props.tray.remove(n)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}

/** "Attach": a menu of what the reader could point the agent at now. */
export function AttachButton(props: { tray: ContextTray; onAttached: () => void }): JSX.Element {
  const { tray, onAttached } = props;
  const [offers, setOffers] = useState<IOffer[] | null>(null);
  const menu = useRef<HTMLUListElement>(null);
  useEffect(() => {
    menu.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
  }, [offers]);
  const close = () => setOffers(null);
  const choose = (offer: IOffer) => {
    tray.add(offer.chip);
    close();
    onAttached();
  };
  return (
    <span className="jp-CopilotRoom-attach">
      <button
        type="button"
        className="jp-mod-styled"
        aria-haspopup="menu"
        aria-expanded={offers !== null}
        title="Attach what you are looking at: the notebook, its selected cells, the open file"
        onClick={() => (offers ? close() : setOffers(tray.offers()))}
      >
        Attach…
      </button>
      {offers && (
        <ul
          ref={menu}
          className="jp-CopilotRoom-picker jp-CopilotRoom-attachMenu"
          role="menu"
          aria-label="Attach context"
          onKeyDown={event => {
            const items = Array.from(
              menu.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []
            );
            const at = items.indexOf(document.activeElement as HTMLElement);
            if (event.key === 'Escape') {
              event.preventDefault();
              close();
            } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
              event.preventDefault();
              const step = event.key === 'ArrowDown' ? 1 : -1;
              items[(at + step + items.length) % items.length]?.focus();
            }
          }}
        >
          {offers.length === 0 && (
            <li className="jp-CopilotRoom-note" role="none">
              Open a notebook or a file to attach it.
            </li>
          )}
          {offers.map(offer => (
            <li
              key={offer.label}
              role="menuitem"
              tabIndex={-1}
              onClick={() => choose(offer)}
              onKeyDown={event => {
                if (event.key === 'Enter' || event.key === ' ') {
                  event.preventDefault();
                  choose(offer);
                }
              }}
            >
              {offer.label}
            </li>
          ))}
        </ul>
      )}
    </span>
  );
}

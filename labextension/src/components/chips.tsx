/** Context chips: on a prompt in the transcript (everyone sees what it pointed at), on the prompt
 * being written (removable; the "Attach" menu, ./attach.tsx, adds them) (../chips.ts). */
import React, { useEffect, useReducer } from 'react';

import { chipLabel, chipTitle, ContextTray, IChip, IShownChip } from '../chips';

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

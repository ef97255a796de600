/** The "Quote into prompt" button of chat messages and replies, and the room view's `QuoteBox`
 * its prompt box listens to (../quote.ts). No box (a view without a prompt box), no button. */
import React, { useContext } from 'react';

import { IRoomModel } from '../model';
import { mayChat, maySubmit } from '../policy';
import { QuoteBox } from '../quote';

export const QuoteContext = React.createContext<QuoteBox | null>(null);

export function QuoteButton(props: {
  text: string;
  who: string;
  model: IRoomModel;
}): JSX.Element | null {
  const quotes = useContext(QuoteContext);
  // Read as the entry renders (entries re-render only when they change, never per delta).
  const me = props.model.me;
  if (!quotes || !props.text.trim() || !(maySubmit(me) || mayChat(me))) {
    return null;
  }
  return (
    <button
      type="button"
      className="jp-CopilotRoom-quote"
      aria-label={`Quote into prompt: what ${props.who} said`}
      title="Quote into prompt"
      onClick={() => quotes.quote(props.text, props.who)}
    >
      Quote
    </button>
  );
}

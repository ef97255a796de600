/** The "Quote into prompt" button of chat messages and replies, and the room view's `QuoteBox`
 * its prompt box listens to (../quote.ts). No box (a view without a prompt box), no button. */
import React, { useContext, useEffect } from 'react';

import { IRoomModel } from '../model';
import { mayChat, maySubmit } from '../policy';
import { QuoteBox, withQuote } from '../quote';

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

/** The prompt box's side: a quote adds to what this reader is typing, and the box takes focus. */
export function useQuotesInto(
  setText: React.Dispatch<React.SetStateAction<string>>,
  inputRef: React.RefObject<HTMLTextAreaElement>
): void {
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
  }, [quotes, setText, inputRef]);
}

/**
 * "Quote into prompt": a chat message or a reply copied into the reader's own prompt box as a
 * Markdown quote, so the agent sees what people agreed on only when someone chooses to send it.
 * One `QuoteBox` per room view: the transcript's buttons put quotes in, its prompt box takes them.
 */
import { ISignal, Signal } from '@lumino/signaling';

/** `text` as a Markdown quote that says who said it: `> Bob said:` then each line quoted. */
export function quoteMarkdown(text: string, who: string): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  const quoted = lines.map(line => (line.trim() ? `> ${line}` : '>'));
  return [`> ${who} said:`, '>', ...quoted].join('\n') + '\n\n';
}

/** What the prompt box holds once `quote` is added: after what is typed, a blank line between. */
export function withQuote(draft: string, quote: string): string {
  return draft.trim() ? `${draft.replace(/\s+$/, '')}\n\n${quote}` : quote;
}

export class QuoteBox {
  /** A quote to add to the prompt box (Markdown, from `quoteMarkdown`). */
  get quoted(): ISignal<this, string> {
    return this._quoted;
  }

  quote(text: string, who: string): void {
    this._quoted.emit(quoteMarkdown(text, who));
  }

  private _quoted = new Signal<this, string>(this);
}

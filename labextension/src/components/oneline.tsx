/** One field and its button: the host claim, a sign-in's return address, a steering message.
 * The button stays off while the field is blank or an action runs; the field keeps its text
 * until the form goes away. */
import React, { useState } from 'react';

export function OneLineForm(props: {
  className: string;
  /** The field's own attributes: `aria-label`, `placeholder`, `type`, `autoFocus`... */
  field: React.InputHTMLAttributes<HTMLInputElement>;
  submit: string;
  busy: boolean;
  onSubmit: (text: string) => void;
  /** Escape in the field (a steering box closes). */
  onEscape?: () => void;
  /** The submit button's size: small in a card, the door's full size otherwise. */
  small?: boolean;
  /** More buttons after the submit one (Cancel). */
  children?: React.ReactNode;
}): JSX.Element {
  const { className, field, submit, busy, onSubmit, onEscape, small = true, children } = props;
  const [text, setText] = useState('');
  return (
    <form
      className={className}
      onSubmit={event => {
        event.preventDefault();
        if (text.trim()) {
          onSubmit(text);
        }
      }}
    >
      <input
        {...field}
        className={`jp-mod-styled ${field.className ?? ''}`.trim()}
        value={text}
        onChange={event => setText(event.target.value)}
        onKeyDown={event => event.key === 'Escape' && onEscape?.()}
      />
      <button
        type="submit"
        className={`jp-mod-styled jp-mod-accept${small ? ' jp-CopilotRoom-small' : ''}`}
        disabled={busy || !text.trim()}
      >
        {submit}
      </button>
      {children}
    </form>
  );
}

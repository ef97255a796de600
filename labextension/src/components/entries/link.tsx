/** Where a prompt was asked when not in the panel: the front or kernel it came from, and a link
 * beside its author and time. */
import React from 'react';

import { serviceName } from '../../chats';
import { webLink } from '../../sanitize';

/** "from Slack", "from Teams", "(from a notebook kernel)": the prompt's `origin` as the server
 * recorded it (a panel's prompt has none). A prompt linked to where it was asked says so
 * through its link ("on GitHub", `PromptLink`) rather than twice. */
export function PromptOrigin(props: {
  origin?: string | null;
  link?: string | null;
}): JSX.Element | null {
  const { origin, link } = props;
  if (!origin || webLink(link)) {
    return null;
  }
  const words = origin === 'kernel' ? '(from a notebook kernel)' : `from ${serviceName(origin)}`;
  return (
    <span className="jp-CopilotRoom-origin" data-origin={origin}>
      {words}
    </span>
  );
}

/** Where the prompt was asked, when the server says (a pull request comment). Only an http(s)
 * URL becomes a link: a `javascript:` one would run in the page of whoever clicks it. */
export function PromptLink(props: { link?: string | null }): JSX.Element | null {
  const url = webLink(props.link);
  if (!url) {
    return null;
  }
  const host = url.hostname;
  const github =
    host === 'github.com' || host.endsWith('.github.com') || url.pathname.includes('/pull/');
  return (
    <a
      className="jp-CopilotRoom-promptLink"
      href={url.href}
      target="_blank"
      rel="noopener noreferrer"
      title={`Where this prompt was asked: ${url.href}`}
    >
      {github ? 'on GitHub' : 'source'}
    </a>
  );
}

/** Where a prompt was asked when not in the panel: a link beside its author and time. */
import React from 'react';

import { webLink } from '../../sanitize';

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

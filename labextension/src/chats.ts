/**
 * Linking one's chat account (Slack) to one's room username: the server's chat bridge hands the
 * signed-in person a one-time code (`POST link-code`), they send `link <code>` to the room's bot
 * there, which only asks: they allow that chat user here (`GET chat-links`), and from then on act
 * in that chat as their username, with their role in each room. A leaked code links nobody.
 * The words of the command and of the card that shows the code (components/linkchat.tsx).
 */

/** The outside services the room knows by name (a front in the header, a chat to link). A Map,
 * not an object: a service named `constructor` is named as it is. */
const SERVICE_NAMES: ReadonlyMap<string, string> = new Map([
  ['github', 'GitHub'],
  ['slack', 'Slack'],
  ['teams', 'Teams']
]);

/** How the panel names `service` (`slack`: "Slack"); one it does not know, as it is. */
export function serviceName(service: string): string {
  return SERVICE_NAMES.get(service) ?? service;
}

/** The command's label: "Link a Slack Account…" ("a Chat" when there is no service to name). */
export function linkChatLabel(service: string | null | undefined): string {
  return `Link a ${service ? serviceName(service) : 'Chat'} Account…`;
}

/** The message the person sends to the bot. */
export function linkMessage(code: string): string {
  return `link ${code}`;
}

/** How long a code works, in words: "10 minutes", "1 minute", "45 seconds". */
export function lifetimeWords(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) {
    return '';
  }
  if (seconds < 60) {
    const whole = Math.max(1, Math.floor(seconds));
    return `${whole} ${whole === 1 ? 'second' : 'seconds'}`;
  }
  const minutes = Math.floor(seconds / 60);
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

/** What the card says around a code. */
export interface ILinkCardText {
  title: string;
  /** The exact message to send. */
  message: string;
  /** Where to send it, and for how long the code works. */
  where: string;
  /** What linking does. */
  after: string;
}

/** The card's words; `person`: the reader's display name (never a hex username), else "you". */
export function linkCardText(
  service: string,
  code: string,
  expiresIn: number,
  person?: string | null
): ILinkCardText {
  const name = serviceName(service);
  const lifetime = lifetimeWords(expiresIn);
  const who = person ? `as ${person}, with ${person}'s role` : 'as you, with your role';
  const where = `Send it to the room's bot in ${name}, in a direct message or a mention.`;
  return {
    title: `Link your ${name} account`,
    message: linkMessage(code),
    where: where + (lifetime ? ` The code works for ${lifetime}.` : ''),
    after: `When it arrives, allow it here: only then does ${name} act ${who}.`
  };
}

/** An ask waiting on the reader: "Slack user @mallory asks to act as you." */
export function askText(ask: { service: string; name: string }): string {
  return `${serviceName(ask.service)} user ${ask.name} asks to act as you.`;
}

/** A linked account: "Slack user @dave acts as you." */
export function linkedText(link: { service: string; name: string }): string {
  return `${serviceName(link.service)} user ${link.name} acts as you.`;
}

/** What the card says once the code ran out. */
export function expiredText(service: string): string {
  return `This code expired. Get a new one, then send it to the room's bot in ${serviceName(service)}.`;
}

/** A host's command on the room's channel in `service`: "Link a Slack Channel…", or "Change the
 * Slack Channel…" while one is linked. */
export function linkChannelLabel(service: string, channel: string | null): string {
  const name = serviceName(service);
  return channel ? `Change the ${name} Channel…` : `Link a ${name} Channel…`;
}

/** "Unlink the Slack Channel (C0123ABCD)". */
export function unlinkChannelLabel(service: string, channel: string): string {
  return `Unlink the ${serviceName(service)} Channel (${channel})`;
}

/** Where a host finds a channel's id in `service`. */
export function channelHint(service: string): string {
  if (service === 'teams') {
    return "The channel's id, from its \u201cGet link to channel\u201d (19:\u2026@thread.tacv2).";
  }
  if (service === 'slack') {
    return "The channel's id, at the bottom of its details (C0123ABCD). Invite the bot there.";
  }
  return "The channel's id.";
}

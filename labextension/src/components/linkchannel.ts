/** A host links the room to a channel of a bridged chat service, or unlinks it (the room
 * menu's "Link a Slack Channel…"): from then on the room's turns go there and mentions there
 * are its prompts. */
import { InputDialog, Notification } from '@jupyterlab/apputils';

import { channelHint, serviceName } from '../chats';
import { IRoom } from '../room';

export async function linkChannel(room: IRoom, service: string): Promise<void> {
  const name = serviceName(service);
  const asked = await InputDialog.getText({
    title: `Link ${room.name} to a ${name} channel`,
    label: channelHint(service),
    text: room.model.channels[service] ?? '',
    okLabel: 'Link'
  });
  const channel = asked.value?.trim();
  if (!asked.button.accept || !channel) {
    return;
  }
  try {
    const linked = await room.client.linkChannel(service, channel);
    room.model.setChannels({ ...room.model.channels, [service]: linked.channel });
    Notification.success(`${room.name}'s turns now go to the ${name} channel ${linked.channel}.`, {
      autoClose: 5000
    });
  } catch (error) {
    Notification.error(`${(error as Error).message}`, { autoClose: 8000 });
  }
}

export async function unlinkChannel(room: IRoom, service: string): Promise<void> {
  try {
    await room.client.unlinkChannel(service);
    room.model.setChannels({ ...room.model.channels, [service]: null });
    Notification.info(`${room.name} is in no ${serviceName(service)} channel now.`, {
      autoClose: 4000
    });
  } catch (error) {
    Notification.error(`${(error as Error).message}`, { autoClose: 8000 });
  }
}

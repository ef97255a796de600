/** Attachments (../attachments.ts): the images and files of the prompt being written (thumbnails,
 * removable; the "Attach" menu, ./attach.tsx, adds them), and a sent prompt's images as
 * thumbnails anyone admitted can enlarge. */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import React, { useCallback, useEffect, useRef, useState } from 'react';

import { IRoomClient, refusalMessage } from '../api';
import { attachmentTitle, checkImages, IAttachmentRef, IShownAttachment } from '../attachments';
import { useRoomClient } from './roomclient';

/** One attachment of the prompt being written: an image (uploading until it has an id) or a
 * repository file. */
export interface IDraftAttachment {
  key: number;
  kind: 'image' | 'file';
  name: string;
  /** An image's thumbnail (an object URL of the reader's own file). */
  preview?: string;
  id?: string;
  path?: string;
}

export interface IDraftAttachments {
  items: IDraftAttachment[];
  /** Why the last images or files offered were refused (cleared by the next offer). */
  refused: string[];
  uploading: boolean;
  addImages(files: readonly File[]): void;
  addPath(path: string): void;
  remove(key: number): void;
  /** What `POST prompts` names. */
  refs(): IAttachmentRef[];
  clear(): void;
}

let nextKey = 0;

/** The prompt box's attachments: images checked here, then uploaded at once, so a refusal (a
 * damaged image, a disguised file) is said while the reader is still writing. */
export function useDraftAttachments(client: IRoomClient): IDraftAttachments {
  const [items, setItems] = useState<IDraftAttachment[]>([]);
  const [refused, setRefused] = useState<string[]>([]);
  const [pending, setPending] = useState(0);
  const itemsRef = useRef(items);
  itemsRef.current = items;
  useEffect(
    () => () => itemsRef.current.forEach(i => i.preview && URL.revokeObjectURL(i.preview)),
    []
  );

  const addImages = useCallback(
    (files: readonly File[]) => {
      const images = itemsRef.current.filter(i => i.kind === 'image').length;
      const { accepted, refused: why } = checkImages(images, files);
      setRefused(why);
      for (const file of accepted) {
        const item: IDraftAttachment = {
          key: nextKey++,
          kind: 'image',
          name: file.name || `image ${images + 1}`,
          preview: URL.createObjectURL(file)
        };
        setItems(now => [...now, item]);
        setPending(n => n + 1);
        client
          .upload(file)
          .then(upload =>
            setItems(now => now.map(i => (i.key === item.key ? { ...i, id: upload.id } : i)))
          )
          .catch(error => {
            setItems(now => now.filter(i => i.key !== item.key));
            URL.revokeObjectURL(item.preview!);
            setRefused(now => [...now, `${item.name}: ${refusalMessage(error)}`]);
          })
          .finally(() => setPending(n => n - 1));
      }
    },
    [client]
  );

  return {
    items,
    refused,
    uploading: pending > 0,
    addImages,
    addPath: (path: string) => {
      setRefused([]);
      const clean = path.trim().replace(/^\/+/, '');
      if (clean) {
        const name = clean.split('/').pop() || clean;
        setItems(now => [...now, { key: nextKey++, kind: 'file', name, path: clean }]);
      }
    },
    remove: (key: number) => {
      const item = items.find(i => i.key === key);
      if (item?.preview) {
        URL.revokeObjectURL(item.preview);
      }
      setItems(now => now.filter(i => i.key !== key));
    },
    refs: () =>
      items.map(i => (i.kind === 'image' ? { id: i.id, name: i.name } : { path: i.path })),
    clear: () => {
      items.forEach(i => i.preview && URL.revokeObjectURL(i.preview));
      setItems([]);
      setRefused([]);
    }
  };
}

/** The images among a paste's or a drop's items. */
export function filesOf(data: DataTransfer | null): File[] {
  return Array.from(data?.files ?? []);
}

/** The prompt's attachments with remove buttons, and why an offer was refused. */
export function DraftAttachments(props: { draft: IDraftAttachments }): JSX.Element | null {
  const { draft } = props;
  if (!draft.items.length && !draft.refused.length) {
    return null;
  }
  return (
    <div className="jp-CopilotRoom-draftAttachments">
      {draft.items.length > 0 && (
        <ul className="jp-CopilotRoom-attachments" aria-label="Attached to your next prompt">
          {draft.items.map(item => (
            <li
              key={item.key}
              className="jp-CopilotRoom-attachment"
              data-kind={item.kind}
              data-uploading={item.kind === 'image' && !item.id}
              title={item.path ?? item.name}
            >
              {item.preview ? (
                <img className="jp-CopilotRoom-thumb" src={item.preview} alt={item.name} />
              ) : (
                <span className="jp-CopilotRoom-attachmentName">File {item.name}</span>
              )}
              <button
                type="button"
                className="jp-CopilotRoom-chipRemove"
                aria-label={`Remove ${item.name}`}
                onClick={() => draft.remove(item.key)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {draft.refused.map((why, n) => (
        <div key={n} className="jp-CopilotRoom-refusal" role="alert">
          {why}
        </div>
      ))}
    </div>
  );
}

/** An image fetched once per page, from the room whose transcript shows it (the request carries
 * the reader's credentials, as every room request: the page's server settings). */
const fetched = new Map<string, Promise<string>>();

function useImage(client: IRoomClient, id: string): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    let promise = fetched.get(id);
    if (!promise) {
      promise = client.attachment(id).then(blob => URL.createObjectURL(blob));
      promise.catch(() => fetched.delete(id));
      fetched.set(id, promise);
    }
    promise.then(u => live && setUrl(u)).catch(() => live && setUrl(null));
    return () => {
      live = false;
    };
  }, [client, id]);
  return url;
}

/** A sent prompt's attachments: images as thumbnails (click to enlarge), files by path. */
export function AttachmentList(props: { attachments?: IShownAttachment[] }): JSX.Element | null {
  const { attachments } = props;
  const client = useRoomClient();
  if (!attachments?.length) {
    return null;
  }
  return (
    <ul className="jp-CopilotRoom-attachments" aria-label="Attachments">
      {attachments.map((a, n) => (
        <li key={n} className="jp-CopilotRoom-attachment" data-kind={a.kind}>
          {a.kind === 'image' && a.id ? (
            <Thumbnail attachment={a} id={a.id} client={client} />
          ) : (
            <span className="jp-CopilotRoom-attachmentName" title={attachmentTitle(a)}>
              File {a.path ?? a.name}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}

function Thumbnail(props: {
  attachment: IShownAttachment;
  id: string;
  client: IRoomClient;
}): JSX.Element {
  const { attachment, id, client } = props;
  const url = useImage(client, id);
  const title = attachmentTitle(attachment);
  const enlarge = () =>
    void showDialog({
      title: attachment.name,
      body: <img className="jp-CopilotRoom-enlarged" src={url ?? ''} alt={attachment.name} />,
      buttons: [Dialog.okButton({ label: 'Close' })]
    });
  return (
    <button
      type="button"
      className="jp-CopilotRoom-thumbButton"
      title={`${title}: click to enlarge`}
      aria-label={`Enlarge ${attachment.name}`}
      disabled={!url}
      onClick={enlarge}
    >
      {url ? (
        <img className="jp-CopilotRoom-thumb" src={url} alt={attachment.name} />
      ) : (
        <span className="jp-CopilotRoom-thumb jp-mod-loading" />
      )}
    </button>
  );
}

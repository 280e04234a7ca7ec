// The full image, over everything; Esc or a click outside closes it.
import { useEffect, useState } from 'react';
import { closeImage, fileLink } from '../sync';
import { transport } from '../transport';
import type { FileLink } from '../model';
import { Dialog } from './common';

export function ImageViewer({ fileId, name }: { fileId: string; name: string }) {
  const [link, setLink] = useState<FileLink | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    void fileLink(fileId, 'original').then((l) => (l ? setLink(l) : setFailed(true)));
  }, [fileId]);
  return (
    <Dialog title={name} onClose={() => closeImage()} wide>
      <div className="viewer">
        {link ? (
          <img src={transport.fileHref(link.url)} alt={name} />
        ) : failed ? (
          <p>The image could not be loaded.</p>
        ) : (
          <p className="muted">Loading…</p>
        )}
      </div>
      {link && (
        <p className="muted small">
          {link.mime} ·{' '}
          <a href={transport.fileHref(link.url)} download={name}>
            Download
          </a>
        </p>
      )}
    </Dialog>
  );
}

// Files and images as messages carry them and as links hand them out. Pure.
import type { SentMessage } from '../types';

export type ImageType = 'jpeg' | 'png' | 'gif' | 'webp';
export const IMAGE_MIME: Record<ImageType, string> = { jpeg: 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' };

/** A media type as stored (lowercase type/subtype, no parameters). */
export const MIME_TOKEN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

function latin1(b: Uint8Array, from: number, to: number): string {
  return String.fromCharCode(...b.subarray(from, to));
}

/** The real image type from the first bytes, or null for anything else (the hub's files and imported files are typed by this, never by a name or a given mime). */
export function sniffImage(b: Uint8Array): ImageType | null {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x)) return 'png';
  if (b.length >= 6) {
    const head = latin1(b, 0, 6);
    if (head === 'GIF87a' || head === 'GIF89a') return 'gif';
  }
  if (b.length >= 12 && latin1(b, 0, 4) === 'RIFF' && latin1(b, 8, 12) === 'WEBP') return 'webp';
  return null;
}

/** payload of a message of kind 'image' or 'file'. */
export interface FilePayload {
  file_id: string;
  name: string;
  mime: string;
  size: number;
  width?: number;
  height?: number;
  has_thumb: boolean;
}

/** A short-lived link to a file or its thumbnail (file_url, files.url). */
export interface FileLink {
  url: string;
  expires_at: number;
  file_id: string;
  variant: 'original' | 'thumb';
  name: string;
  mime: string;
  size: number;
}

/** What sending a file answers (send_file, files.send): the message it made and the file's payload. */
export interface SentFile extends FilePayload, SentMessage {
  kind: 'image' | 'file';
}

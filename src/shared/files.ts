// Files and images as messages carry them and as links hand them out. Pure.
import type { SentMessage } from './types';

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

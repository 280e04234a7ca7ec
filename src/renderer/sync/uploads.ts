// The owner's files: what the composer may attach, and sending one (files.send) with its upload's progress.
// The hub processes it as any agent's send_file (type read from the bytes, EXIF/GPS dropped, a thumbnail).
import { LIMITS } from '../../shared/limits';
import type { SentFile } from '../../shared/features/files';
import { bytes } from '../format';
import { apiUpload } from '../transport';
import { errorText } from './common';

/** Where a file goes, as the composer knows it. */
export interface FileTarget {
  conv_id: string;
  caption?: string;
  to?: string[];
  reply_to?: string;
  thread_id?: string;
}

/** Why a file cannot be attached (empty, over the hub's file limit), in plain words; null when it can. */
export function attachRefusal(file: { name: string; size: number }): string | null {
  if (file.size === 0) return `"${file.name}" is empty: there is nothing to send.`;
  if (file.size > LIMITS.maxFileBytes) {
    return `"${file.name}" is ${bytes(file.size)}; a file can be at most ${bytes(LIMITS.maxFileBytes)}. Send a smaller file, or split it.`;
  }
  return null;
}

/** Text too long for one message, as a file an agent can read. */
export function textAsFile(text: string): File {
  return new File([text], 'message.txt', { type: 'text/plain' });
}

/** The file's content in base64 (what files.send carries). */
function base64Of(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(new Error(`The file could not be read (${reader.error?.message ?? 'unknown error'}).`));
    reader.readAsDataURL(blob);
  });
}

/**
 * Sends one file as the owner; onProgress(0..1) while its bytes reach the hub. Resolves with what the hub made, or
 * with why it was not sent (the hub's refusal in its own words, or why the file could not be read).
 */
export async function sendFile(
  file: File,
  target: FileTarget,
  onProgress: (sent: number) => void,
): Promise<{ sent: SentFile } | { error: string }> {
  try {
    const refusal = attachRefusal(file);
    if (refusal) throw new Error(refusal);
    const data = await base64Of(file);
    const input: Parameters<typeof apiUpload<'files.send'>>[1] = { conv_id: target.conv_id, name: file.name || 'file', data };
    if (file.type) input.mime = file.type;
    if (target.caption) input.caption = target.caption;
    if (target.to?.length) input.to = target.to;
    if (target.reply_to) input.reply_to = target.reply_to;
    if (target.thread_id) input.thread_id = target.thread_id;
    return { sent: await apiUpload('files.send', input, onProgress) };
  } catch (err) {
    return { error: errorText(err) };
  }
}

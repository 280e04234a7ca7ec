// Files: send_file and file_url, plus what the HTTP door needs to serve signed links.
//
// send_file: the base64 is decoded strictly; the real type is sniffed from the bytes (never taken
// from the name or the given mime). JPEG, PNG, GIF and WebP are images: they are re-encoded with
// sharp (orientation applied, all metadata — EXIF, GPS, XMP, ICC, comments — dropped, since sharp
// writes none unless withMetadata/keepExif is asked for) and get a thumbnail once, stored beside
// them. The sharp work runs in the tool's async prepare step, in one of the agent's image job slots
// (hub/core/image-jobs.ts), and only for images within LIMITS' pixel and frame limits (checked from the header);
// the write (file + message + event) is one transaction.
//
// file_url: a link on the hub's loopback port: /files/<file_id>.<o|t>.<expiry ms, base 36>.<mac>,
// the mac being hub.mac over the rest. verifyFileToken + readFile serve it. An agent that called from elsewhere (the
// container listener, the HTTPS front) gets a link on the URL it reached the hub by, in a form of its own:
// /files/<file_id>.<o|t>.<expiry>.<c|n>.<mac> (c: containers, n: tailnet), which only that place's door serves
// (verifyAwayFileToken) and the loopback's owner links never pass for.
import crypto from 'node:crypto';
import type SharpFn from 'sharp';
import type { FeaturesHub } from '../services';
import { IMAGE_MIME, MIME_TOKEN, sniffImage, type ImageType, type SentFile } from '../../../../shared/features/files';
import type { RequestPlace } from '../../../../shared/agents/places';
import { newId } from '../../core/hub';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import { conversationById } from '../../../store/tables/talk/conversations';
import { messageById } from '../../../store/tables/talk/messages';
import { fileBytes, fileMeta, insertFile, type FileMeta } from '../../../store/tables/talk/files';
import { requireMember } from '../../talk/access';
import { passGates } from '../../talk/gates';
import { insertMessageWithEvent, requireText, type SentMessage } from '../../talk/messages';
import type { ToolHandlers } from '../../identity/tool-handler';

export type FileVariant = 'original' | 'thumb';
export { sniffImage };
const IMAGE_LABEL: Record<ImageType, string> = { jpeg: 'JPEG', png: 'PNG', gif: 'GIF', webp: 'WebP' };
const EXT_CLAIM: Record<string, ImageType> = { jpg: 'jpeg', jpeg: 'jpeg', jpe: 'jpeg', jfif: 'jpeg', png: 'png', gif: 'gif', webp: 'webp' };
const MIME_CLAIM: Record<string, ImageType> = {
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/pjpeg': 'jpeg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** Thumbnails fit in this box (pixels), made once when the image is sent. */
export const THUMB_BOX = 320;
/** Largest frame (pixels) the hub decodes; a bigger one is refused (decompression bombs). Frames: LIMITS too. */
const MAX_IMAGE_PIXELS = LIMITS.maxImagePixels;
/** Longest the sharp work on one image may take (seconds). */
const SHARP_TIMEOUT_SECS = 30;

// ---- input checks ---------------------------------------------------------------------------

const BASE64_BODY = /^[A-Za-z0-9+/]*$/;

/**
 * Strict base64 (RFC 4648 §4, standard alphabet): only A-Z a-z 0-9 + /, '=' padding only at the end
 * and only as much as the length needs, no stray bits. Line breaks (as MIME encoders wrap) are allowed.
 * Buffer.from(…, 'base64') alone would silently skip anything else, so it is checked first.
 */
export function decodeBase64Strict(data: string, maxBytes: number = LIMITS.maxFileBytes): Buffer {
  const s = data.includes('\n') ? data.replace(/\r?\n/g, '') : data;
  const pad = s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0;
  const body = pad ? s.slice(0, -pad) : s;
  const decodedSize = Math.floor((body.length * 3) / 4);
  if (decodedSize > maxBytes) {
    throw new HubError(
      'too_large',
      `The file is about ${decodedSize} bytes; the limit is ${maxBytes} (${Math.round(maxBytes / 1048576)} MiB). Nothing was stored.`,
      `Send a smaller file (compress it), or split it into parts of at most ${Math.round(maxBytes / 1048576)} MiB each.`,
      { limit: maxBytes },
    );
  }
  const bad = BASE64_BODY.test(body) ? -1 : body.search(/[^A-Za-z0-9+/]/);
  if (bad >= 0) {
    const ch = body.codePointAt(bad)!;
    const shown =
      ch === 0x3d
        ? "'=' (padding is only allowed at the end)"
        : `${JSON.stringify(String.fromCodePoint(ch))} (U+${ch.toString(16).toUpperCase().padStart(4, '0')})`;
    throw new HubError(
      'invalid_argument',
      `data is not valid base64: character ${shown} at position ${bad}.`,
      'Encode the file with standard base64 (A-Z a-z 0-9 + /, = padding).',
    );
  }
  if (body.length === 0 || body.length % 4 === 1 || (pad && (body.length + pad) % 4 !== 0)) {
    throw new HubError(
      'invalid_argument',
      `data is not valid base64: ${body.length === 0 ? 'it is empty' : `its length ${s.length} is impossible for base64`}.`,
      'Send the whole file, encoded with standard base64.',
    );
  }
  // Canonical form: the unused bits of the last character are zero (only the last group can differ).
  const last = body.slice(Math.floor((body.length - 1) / 4) * 4);
  if (Buffer.from(last, 'base64').toString('base64').replace(/=+$/, '') !== last) {
    throw new HubError(
      'invalid_argument',
      'data is not valid base64: its last character carries stray bits (truncated or corrupted?).',
      'Send the whole file, encoded with standard base64.',
    );
  }
  return Buffer.from(body, 'base64');
}

/** The name as stored: no folders, no control or bidi-override characters. */
export function cleanFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const cleaned = base
    .replace(/[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu, '')
    .replace(/\p{Cs}/gu, '\ufffd')
    .trim();
  if (!cleaned || cleaned === '.' || cleaned === '..') {
    throw new HubError(
      'invalid_argument',
      `name ${JSON.stringify(name)} is not a usable file name.`,
      'Give a file name such as chart.png.',
    );
  }
  return cleaned;
}

function normalizeMime(mime: string): string {
  const m = mime.split(';')[0]!.trim().toLowerCase();
  if (!MIME_TOKEN.test(m)) {
    throw new HubError(
      'invalid_argument',
      `mime ${JSON.stringify(mime)} is not a media type.`,
      'Give a type such as application/pdf, or leave mime out.',
    );
  }
  return m;
}

// ---- preparing a file (async, outside the transaction) ---------------------------------------

export interface PreparedFile {
  name: string;
  mime: string;
  data: Buffer;
  sha256: string;
  image: null | { width: number; height: number; thumb: Buffer; thumbMime: string };
}

export interface SendFileInput {
  conv_id: string;
  data: string;
  name: string;
  mime?: string;
  caption?: string;
  reply_to?: string;
}

/** Runs a job (the sharp work on one image) when its turn comes (hub/core/image-jobs.ts), or refuses it. */
export type ImageJobRunner = <T>(job: () => Promise<T>) => Promise<T>;

/**
 * Decodes, checks and (for images) cleans a file; throws a HubError for anything refused. runImageJob: where the
 * sharp work waits its turn (send_file: the agent's image job slots); none: at once.
 */
export async function prepareFile(
  input: Pick<SendFileInput, 'data' | 'name' | 'mime'>,
  runImageJob: ImageJobRunner = (job) => job(),
): Promise<PreparedFile> {
  const name = cleanFileName(input.name);
  const givenMime = input.mime !== undefined ? normalizeMime(input.mime) : undefined;
  const raw = decodeBase64Strict(input.data); // over LIMITS.maxFileBytes is refused there (its size is exact before decoding)
  const real = sniffImage(raw);
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase();
  const claims: Array<[string, ImageType]> = [];
  if (ext && EXT_CLAIM[ext]) claims.push([`name ${JSON.stringify(name)}`, EXT_CLAIM[ext]!]);
  if (givenMime && MIME_CLAIM[givenMime]) claims.push([`mime ${givenMime}`, MIME_CLAIM[givenMime]!]);
  for (const [who, claimed] of claims) {
    if (claimed !== real) {
      const label = IMAGE_LABEL[claimed];
      throw new HubError(
        'invalid_argument',
        `The file claims to be ${label} but is not: its ${who} says ${label}, its bytes are ${real ? IMAGE_LABEL[real] : 'not an image'}.`,
        real
          ? `Name it .${real === 'jpeg' ? 'jpg' : real} (or leave mime out).`
          : 'Send the real image, or name it for what it is and give its mime.',
        { claimed: IMAGE_MIME[claimed], detected: real ? IMAGE_MIME[real] : null },
      );
    }
  }
  if (!real) {
    return { name, mime: givenMime ?? 'application/octet-stream', data: raw, sha256: sha256(raw), image: null };
  }
  const image = await runImageJob(() => cleanImage(raw, real));
  return { name, mime: IMAGE_MIME[real], data: image.data, sha256: sha256(image.data), image };
}

function sha256(b: Buffer): string {
  return crypto.createHash('sha256').update(b).digest('hex');
}

/** sharp (and libvips, ~6 MB) is loaded the first time an image arrives, not when the hub starts. */
let sharpModule: typeof SharpFn | undefined;
async function loadSharp(): Promise<typeof SharpFn> {
  sharpModule ??= (await import('sharp')).default;
  return sharpModule;
}

/** Refuses, from the header alone, an image whose frames would cost too much to decode and re-encode (LIMITS). */
function refuseCostlyImage(width: number, frameHeight: number, frames: number): void {
  const next = 'Send a smaller or shorter image (fewer frames), or send it as a video or a zip file (whoami lists the limits).';
  if (frames > LIMITS.maxImageFrames) {
    throw new HubError('too_large', `The image has ${frames} frames; at most ${LIMITS.maxImageFrames} are accepted.`, next, {
      frames,
      max_frames: LIMITS.maxImageFrames,
    });
  }
  const total = width * frameHeight * frames;
  if (frames > 1 && total > LIMITS.maxAnimationPixels) {
    throw new HubError(
      'too_large',
      `The animated image has ${frames} frames of ${width}×${frameHeight}: ${total} pixels in all; at most ${LIMITS.maxAnimationPixels} are accepted.`,
      next,
      { pixels: total, max_animation_pixels: LIMITS.maxAnimationPixels },
    );
  }
}

export async function cleanImage(
  raw: Buffer,
  type: ImageType,
): Promise<{ data: Buffer; width: number; height: number; thumb: Buffer; thumbMime: string }> {
  const sharp = await loadSharp();
  const animated = type === 'gif' || type === 'webp';
  const input = { limitInputPixels: MAX_IMAGE_PIXELS, animated } as const;
  try {
    const meta = await sharp(raw, input).metadata();
    const pages = meta.pages ?? 1;
    refuseCostlyImage(meta.width ?? 0, meta.pageHeight ?? meta.height ?? 0, pages);
    // Multi-page (animated) images can only be turned by 180°; they rarely carry an orientation.
    let img = sharp(raw, input).timeout({ seconds: SHARP_TIMEOUT_SECS });
    if (pages <= 1) img = img.rotate(); // applies the EXIF orientation, then forgets it
    // No withMetadata()/keepExif(): the output carries no EXIF, GPS, XMP, IPTC or ICC data.
    switch (type) {
      case 'jpeg':
        img = img.jpeg({ quality: 90 });
        break;
      case 'png':
        img = img.png();
        break;
      case 'gif':
        img = img.gif();
        break;
      case 'webp':
        img = img.webp({ quality: 90 });
        break;
    }
    const out = await img.toBuffer({ resolveWithObject: true });
    const width = out.info.width;
    const height = pages > 1 ? (out.info.pageHeight ?? out.info.height) : out.info.height;
    const thumb = await sharp(out.data, { limitInputPixels: MAX_IMAGE_PIXELS, animated: false })
      .timeout({ seconds: SHARP_TIMEOUT_SECS })
      .resize({ width: THUMB_BOX, height: THUMB_BOX, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 75 })
      .toBuffer();
    return { data: out.data, width, height, thumb, thumbMime: 'image/webp' };
  } catch (err) {
    if (err instanceof HubError) throw err;
    const msg = err instanceof Error ? err.message : String(err);
    if (/pixel limit/i.test(msg)) {
      throw new HubError('too_large', `The image has more than ${MAX_IMAGE_PIXELS} pixels.`, 'Send a smaller image.', {
        max_pixels: MAX_IMAGE_PIXELS,
      });
    }
    throw new HubError(
      'invalid_argument',
      `The file starts like ${IMAGE_LABEL[type]} but could not be read as one (${msg.split('\n')[0]}).`,
      'Send an intact image, or a different file.',
    );
  }
}

// ---- storing a file (synchronous, one transaction) ---------------------------------------------

export type { SentFile };

/** Where a file's message goes; to and thread_id only the owner gives (files.send). */
export type FileMessageInput = Omit<SendFileInput, 'data' | 'name' | 'mime'> & { to?: string[]; thread_id?: string };

/** Stores a prepared file and its message (kind image or file) in one write. */
export function storeFile(
  hub: FeaturesHub,
  senderId: string,
  input: FileMessageInput,
  p: PreparedFile,
  opts: { brakes?: boolean } = {},
): SentFile {
  return hub.write(() => {
    const access = requireMember(hub, senderId, input.conv_id);
    passGates('conversation', { hub, userId: senderId, access }); // may-speak (hub/talk/gates.ts)
    const caption = requireText(input.caption ?? '', 'caption');
    const fileId = newId('f');
    const kind = p.image ? 'image' : 'file';
    const payload: Record<string, unknown> = { file_id: fileId, name: p.name, mime: p.mime, size: p.data.length };
    if (p.image) {
      payload.width = p.image.width;
      payload.height = p.image.height;
    }
    payload.has_thumb = !!p.image;
    const sent = insertMessageWithEvent(
      hub,
      senderId,
      access,
      { conv_id: input.conv_id, text: caption, reply_to: input.reply_to, thread_id: input.thread_id, to: input.to, kind, payload },
      [],
      opts.brakes ?? true,
    );
    insertFile(hub.db, {
      id: fileId,
      conv_id: access.conv.id,
      msg_id: sent.msg_id,
      uploader_id: senderId,
      name: p.name,
      mime: p.mime,
      size: p.data.length,
      sha256: p.sha256,
      is_image: p.image ? 1 : 0,
      width: p.image?.width ?? null,
      height: p.image?.height ?? null,
      data: p.data,
      thumb: p.image?.thumb ?? null,
      thumb_mime: p.image?.thumbMime ?? null,
      created_at: sent.created_at,
    });
    return { ...sent, file_id: fileId, kind, ...(payload as Omit<SentFile, keyof SentMessage | 'file_id' | 'kind'>) };
  });
}

/** Cheap refusal before the expensive decode: not a member, or silenced there. */
function precheckSender(hub: FeaturesHub, senderId: string, convId: string): void {
  const access = requireMember(hub, senderId, convId);
  passGates('conversation', { hub, userId: senderId, access }); // may-speak (hub/talk/gates.ts)
}

// ---- links ------------------------------------------------------------------------------------

const VARIANT_CODE: Record<FileVariant, string> = { original: 'o', thumb: 't' };
const TOKEN_MAC_CHARS = 22; // 132 bits
const TOKEN_RE = /^([A-Za-z0-9_-]{1,64})\.([ot])\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{22})$/;

function tokenMac(hub: FeaturesHub, body: string): string {
  return hub.mac(`perch-file:${body}`, TOKEN_MAC_CHARS);
}

/** A signed token for a file variant that is valid until expiresAt (ms since 1970). */
export function signFileToken(hub: FeaturesHub, fileId: string, variant: FileVariant, expiresAt: number): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(fileId)) throw new HubError('not_found', `No file ${fileId}.`, 'Use a file_id from a message payload.');
  const body = `${fileId}.${VARIANT_CODE[variant]}.${Math.floor(expiresAt).toString(36)}`;
  return `${body}.${tokenMac(hub, body)}`;
}

/** Checks a token from a /files/<token> URL: a forged or malformed one is not_found, a stale one expired. */
export function verifyFileToken(hub: FeaturesHub, token: string): { file_id: string; variant: FileVariant; expires_at: number } {
  const m = TOKEN_RE.exec(token);
  if (!m) throw linkNotFound();
  const [, fileId, v, exp36, mac] = m;
  return checkedToken(hub, tokenMac(hub, `${fileId}.${v}.${exp36}`), mac!, fileId!, v!, exp36!);
}

function linkNotFound(): HubError {
  return new HubError('not_found', 'No such file link.', 'Ask for a new link with file_url.');
}

/** What both token forms check once parsed: the MAC (in constant time; forged: not_found), then the expiry. */
function checkedToken(
  hub: FeaturesHub,
  wantMac: string,
  gotMac: string,
  fileId: string,
  v: string,
  exp36: string,
): { file_id: string; variant: FileVariant; expires_at: number } {
  const want = Buffer.from(wantMac);
  const got = Buffer.from(gotMac);
  if (want.length !== got.length || !crypto.timingSafeEqual(want, got)) throw linkNotFound();
  const expiresAt = parseInt(exp36, 36);
  if (hub.now() >= expiresAt) {
    throw new HubError('expired', `This file link expired at ${new Date(expiresAt).toISOString()}.`, 'Ask for a new link with file_url.', {
      expired_at: expiresAt,
    });
  }
  return { file_id: fileId, variant: v === 't' ? 'thumb' : 'original', expires_at: expiresAt };
}

/** The places an agent may be handed a link for other than the loopback, and their code in the token. */
export type AwayPlace = 'containers' | 'tailnet';
const AWAY_CODE: Record<AwayPlace, string> = { containers: 'c', tailnet: 'n' };
const AWAY_TOKEN_RE = /^([A-Za-z0-9_-]{1,64})\.([ot])\.([0-9a-z]{1,12})\.([cn])\.([A-Za-z0-9_-]{22})$/;

function awayTokenMac(hub: FeaturesHub, body: string): string {
  return hub.mac(`perch-agent-file:${body}`, TOKEN_MAC_CHARS);
}

/** A signed token for a file variant, served only at `place`'s door, valid until expiresAt. */
export function signAwayFileToken(hub: FeaturesHub, fileId: string, variant: FileVariant, expiresAt: number, place: AwayPlace): string {
  const body = `${signFileToken(hub, fileId, variant, expiresAt).split('.').slice(0, 3).join('.')}.${AWAY_CODE[place]}`;
  return `${body}.${awayTokenMac(hub, body)}`;
}

/** Whether a token has the form of a link made for `place` (not whether it is genuine: verifyAwayFileToken). */
export function isAwayFileToken(token: string, place: AwayPlace): boolean {
  const m = AWAY_TOKEN_RE.exec(token);
  return !!m && m[4] === AWAY_CODE[place];
}

/** Checks a token of a link made for `place` (forged, malformed or made for another place: not_found; stale: expired). */
export function verifyAwayFileToken(
  hub: FeaturesHub,
  token: string,
  place: AwayPlace,
): { file_id: string; variant: FileVariant; expires_at: number } {
  const m = AWAY_TOKEN_RE.exec(token);
  if (!m || m[4] !== AWAY_CODE[place]) throw linkNotFound();
  const [, fileId, v, exp36, code, mac] = m;
  return checkedToken(hub, awayTokenMac(hub, `${fileId}.${v}.${exp36}.${code}`), mac!, fileId!, v!, exp36!);
}

/** The file, if it exists and its message was not recalled. */
function liveFile(hub: FeaturesHub, fileId: string): FileMeta {
  const f = fileMeta(hub.db, fileId);
  const msg = f?.msg_id ? messageById(hub.db, f.msg_id) : undefined;
  if (!f || (f.msg_id && (!msg || msg.recalled_at))) {
    throw new HubError('not_found', `No file ${fileId}.`, 'Use a file_id from the payload of a message you can see.');
  }
  return f;
}

function variantInfo(f: FileMeta, variant: FileVariant): { name: string; mime: string; size: number } {
  if (variant === 'thumb') {
    if (!f.is_image || f.thumb_size == null || !f.thumb_mime) {
      throw new HubError('invalid_argument', `File ${f.id} is not an image and has no thumbnail.`, 'Ask for variant original.');
    }
    const stem = f.name.replace(/\.[^.]*$/, '') || f.name;
    return { name: `${stem}.thumb.${f.thumb_mime.split('/')[1]}`, mime: f.thumb_mime, size: f.thumb_size };
  }
  return { name: f.name, mime: f.mime, size: f.size };
}

/**
 * A link to a file variant for a caller at `at` (absent: the loopback): on the URL it reached the hub by, in the form
 * only that place's door serves, when it called from the container listener or through the HTTPS front.
 */
function linkFor(hub: FeaturesHub, f: FileMeta, variant: FileVariant, at?: RequestPlace) {
  const info = variantInfo(f, variant);
  const expiresAt = hub.now() + LIMITS.fileUrlTtlSecs * 1000;
  const away = at && at.place !== 'local' && at.base_url ? at.place : undefined;
  const token = away ? signAwayFileToken(hub, f.id, variant, expiresAt, away) : signFileToken(hub, f.id, variant, expiresAt);
  const base = away ? at!.base_url! : hub.doors.baseUrl;
  return { url: `${base.replace(/\/+$/, '')}/files/${token}`, expires_at: expiresAt, file_id: f.id, variant, ...info };
}

/** file_url for a member of the conversation the file was sent in (from the seq it may see). */
export function fileUrl(
  hub: FeaturesHub,
  userId: string,
  input: { conv_id: string; file_id: string; variant?: FileVariant },
  at?: RequestPlace,
) {
  const access = requireMember(hub, userId, input.conv_id);
  const f = fileMeta(hub.db, input.file_id);
  const msg = f?.msg_id ? messageById(hub.db, f.msg_id) : undefined;
  if (!f || f.conv_id !== access.conv.id || (msg && msg.seq < access.member.from_seq)) {
    throw new HubError(
      'not_found',
      `No file ${input.file_id} in conversation ${input.conv_id}.`,
      'Use a file_id from the payload of a message in this conversation.',
    );
  }
  return linkFor(hub, liveFile(hub, f.id), input.variant ?? 'original', at);
}

/** A link for the owner's UI (the owner sees every conversation). */
export function ownerFileUrl(hub: FeaturesHub, fileId: string, variant: FileVariant = 'original') {
  const f = liveFile(hub, fileId);
  if (!conversationById(hub.db, f.conv_id)) throw new HubError('not_found', `No file ${fileId}.`, 'Use a file_id from a message payload.');
  return linkFor(hub, f, variant);
}

/**
 * The bytes to serve for a verified token. disposition: 'inline' only for images the hub re-encoded
 * itself; anything else must be served as an attachment (with X-Content-Type-Options: nosniff) so an
 * uploaded HTML or SVG can never run on the hub's origin.
 */
export function readFile(
  hub: FeaturesHub,
  fileId: string,
  variant: FileVariant = 'original',
): {
  data: Buffer;
  mime: string;
  name: string;
  size: number;
  sha256: string | null;
  disposition: 'inline' | 'attachment';
} {
  const f = liveFile(hub, fileId);
  const info = variantInfo(f, variant);
  const data = fileBytes(hub.db, f.id, variant);
  if (!data) throw new HubError('not_found', `No ${variant} of file ${fileId}.`, 'Ask for variant original.');
  return {
    data,
    mime: info.mime,
    name: info.name,
    size: data.length,
    sha256: variant === 'original' ? f.sha256 : null,
    disposition: f.is_image ? 'inline' : 'attachment',
  };
}

export const fileTools = {
  send_file: {
    prepare: async ({ hub, agentId }, a) => {
      precheckSender(hub, agentId, a.conv_id);
      // The sharp work waits for one of the agent's (and the hub's) image job slots (hub/core/image-jobs.ts).
      return prepareFile(a, (job) => hub.imageJobs.run(agentId, job));
    },
    run: ({ hub, agentId }, a, p: PreparedFile) => storeFile(hub, agentId, a, p),
  },
  file_url: {
    run: ({ hub, agentId, at }, a) => fileUrl(hub, agentId, a, at), // a link the caller can reach from where it called
  },
} satisfies ToolHandlers<'send_file' | 'file_url', FeaturesHub>;

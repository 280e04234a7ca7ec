// The files of perch import's writing walk (store/export/write-rows.ts places a file's row; its bytes, files/<id>,
// come later in the archive). An image's bytes are never stored as the archive gives them: they go through the
// cleaning send_file uses (hub/features/files/files.ts cleanImage: the pixel and frame limits from the header,
// re-encoded without EXIF, GPS or anything after the image, a thumbnail made here), handed in by whoever runs the
// import, since store/ imports nothing of the hub. The archive's own thumbnail is not taken.
import crypto from 'node:crypto';
import { sql, type Db } from '../db/db';
import { sniffImage, type ImageType } from '../../../shared/features/files';
import { ExportFileError } from './read';

export interface CleanedImage {
  data: Buffer;
  width: number;
  height: number;
  thumb: Buffer;
  thumbMime: string;
}

/** send_file's image cleaning: the cleaned image, or a throw (one line) for an image it refuses. */
export type ImageCleaner = (bytes: Buffer, type: ImageType) => Promise<CleanedImage>;

/** A files row of the archive as it goes here: its conversation, message and uploader mapped, its id here `place`. */
export type PlacedFile = Record<string, unknown> & { place: string };

export class ArchiveFiles {
  private readonly placed = new Map<string, PlacedFile>();

  constructor(
    private readonly db: Db,
    private readonly clean: ImageCleaner,
    private readonly added: () => void,
  ) {}

  /** A files row to write when its bytes come (archive id `id`). */
  expect(id: string, f: PlacedFile): void {
    this.placed.set(id, f);
  }

  async bytes(id: string, thumb: boolean, bytes: Buffer): Promise<void> {
    const f = this.placed.get(id);
    // Its row was already here (counted then), or this is a thumbnail: an image's is made again from its cleaned bytes.
    if (!f || thumb) return;
    if (bytes.length !== f.size) throw new ExportFileError(`files/${id} is ${bytes.length} bytes; its row says ${String(f.size)}`);
    const type = f.is_image ? sniffImage(bytes) : null;
    let image: CleanedImage | null = null;
    if (type !== null) {
      try {
        image = await this.clean(bytes, type);
      } catch (err) {
        throw new ExportFileError(`files/${id}: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]!}`);
      }
      // The message that shows it says what is stored now.
      sql(
        this.db,
        `UPDATE messages SET payload = json_set(payload, '$.size', CAST(? AS INTEGER), '$.width', CAST(? AS INTEGER), '$.height', CAST(? AS INTEGER), '$.has_thumb', json('true'))
          WHERE id = ? AND provenance = 'imported' AND json_valid(payload) AND json_extract(payload, '$.file_id') IN (?, ?)`,
      ).run(image.data.length, image.width, image.height, f.msg_id, id, f.place);
    }
    const data = image?.data ?? bytes;
    sql(
      this.db,
      `INSERT INTO files (id, conv_id, msg_id, uploader_id, name, mime, size, sha256, is_image, width, height, data, thumb, thumb_mime, created_at)
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      f.place,
      f.conv_id,
      f.msg_id,
      f.uploader_id,
      f.name,
      f.mime,
      data.length,
      image ? crypto.createHash('sha256').update(data).digest('hex') : f.sha256,
      f.is_image,
      image?.width ?? f.width,
      image?.height ?? f.height,
      data,
      image?.thumb ?? null,
      image?.thumbMime ?? f.thumb_mime,
      f.created_at,
    );
    this.added();
  }

  /** Every file row placed got its bytes. */
  finish(): void {
    for (const [id, f] of this.placed)
      if (!sql(this.db, 'SELECT 1 FROM files WHERE id = ?').get(f.place))
        throw new ExportFileError(`files/${id} (the bytes of a file) is missing from the archive`);
  }
}

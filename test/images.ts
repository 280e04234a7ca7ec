// Test images made with sharp.
import sharp from 'sharp';

/** A 1200×800 JPEG from a camera "TestCam" with GPS coordinates (EXIF IFD3) and the given orientation. */
export async function gpsJpeg(opts: { orientation?: number } = {}): Promise<Buffer> {
  // Noise so the JPEG is not trivially small and the thumbnail clearly is.
  const w = 1200;
  const h = 800;
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 24;
  let img = sharp(raw, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 85 });
  if (opts.orientation) img = img.withMetadata({ orientation: opts.orientation });
  return img
    .withExifMerge({
      IFD0: { Make: 'TestCam', Model: 'GeoShooter 9000' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 300/100' },
    })
    .toBuffer();
}

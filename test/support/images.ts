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

/**
 * An animated GIF of `frames` frames of width×height, each one flat colour (blue and red in turn), written by
 * hand: flat frames compress to almost nothing (2000×2000×24 is about 90 KB), and writing them costs no image
 * work (sharp's GIF encoder takes seconds for that many pixels). Each frame's LZW stream is the greedy encoding
 * of a run of one colour: codes for runs of 1, 2, 3, … pixels, a clear code before the table is full.
 */
export function flatAnimatedGif(width: number, height: number, frames: number): Buffer {
  const u16 = (n: number) => [n & 0xff, n >> 8];
  const out: number[] = [
    ...Buffer.from('GIF89a', 'latin1'),
    ...u16(width),
    ...u16(height),
    0x80,
    0,
    0, // global colour table of 2
    0,
    0,
    255,
    255,
    0,
    0,
    0x21,
    0xff,
    0x0b,
    ...Buffer.from('NETSCAPE2.0', 'latin1'),
    0x03,
    0x01,
    0x00,
    0x00,
    0x00, // loop forever
  ];
  for (let f = 0; f < frames; f++) {
    out.push(0x21, 0xf9, 0x04, 0x00, ...u16(10), 0x00, 0x00); // 0.1 s per frame
    out.push(0x2c, ...u16(0), ...u16(0), ...u16(width), ...u16(height), 0x00);
    const data = flatLzw(f % 2, width * height);
    out.push(2); // LZW minimum code size
    for (let i = 0; i < data.length; i += 255) {
      const block = data.subarray(i, i + 255);
      out.push(block.length, ...block);
    }
    out.push(0);
  }
  out.push(0x3b);
  return Buffer.from(out);
}

/** The LZW stream (minimum code size 2) of `count` pixels of colour index `pixel`. */
function flatLzw(pixel: number, count: number): Buffer {
  const CLEAR = 4;
  const EOI = 5;
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  // The decoder's view decides each code's width: it adds an entry for every code but the first after a clear.
  let width = 3;
  let next = 6;
  let first = true;
  const emit = (code: number) => {
    acc |= code << bits;
    bits += width;
    while (bits >= 8) {
      bytes.push(acc & 0xff);
      acc >>>= 8;
      bits -= 8;
    }
    if (code === CLEAR) {
      width = 3;
      next = 6;
      first = true;
    } else if (first) {
      first = false;
    } else if (next < 4096) {
      next += 1;
      if (next === 1 << width && width < 12) width += 1;
    }
  };
  let left = count;
  while (left > 0) {
    emit(CLEAR);
    emit(pixel); // a run of 1
    left -= 1;
    // Code 4 + n stands for a run of n pixels (n >= 2): each code emitted adds the next longer run.
    for (let n = 2; left > 0 && n <= 4000; n++) {
      const run = Math.min(n, left);
      emit(run === 1 ? pixel : 4 + run);
      left -= run;
    }
  }
  emit(EOI);
  if (bits > 0) bytes.push(acc & 0xff);
  return Buffer.from(bytes);
}

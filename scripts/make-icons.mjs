#!/usr/bin/env node
// Draws the TagSSH icon (a tag-shaped prompt: "›_" on a blue rounded square) as PNGs, with no
// image library: a signed-distance rasteriser plus a minimal PNG encoder. Run once; the PNGs
// are committed (build/icon.png for electron-builder, renderer/assets/icon.png for the UI).
import { deflateSync } from 'node:zlib';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function png(size, rgba) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) rgba.copy(raw, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const sdRoundRect = (x, y, half, r) => {
  const qx = Math.abs(x) - half + r;
  const qy = Math.abs(y) - half + r;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r;
};
const sdSegment = (x, y, ax, ay, bx, by) => {
  const px = x - ax,
    py = y - ay,
    dx = bx - ax,
    dy = by - ay;
  const t = Math.max(0, Math.min(1, (px * dx + py * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - dx * t, py - dy * t);
};

function draw(size) {
  const out = Buffer.alloc(size * size * 4);
  const aa = 1.2 / size;
  for (let j = 0; j < size; j++) {
    for (let i = 0; i < size; i++) {
      // normalised coords in [-1, 1]
      const x = ((i + 0.5) / size) * 2 - 1;
      const y = ((j + 0.5) / size) * 2 - 1;
      const bg = Math.min(1, Math.max(0, 0.5 - sdRoundRect(x, y, 0.92, 0.36) / (2 * aa)));
      const t = (y + 1) / 2;
      let r = 0x2f + (0x1d - 0x2f) * t,
        g = 0x7d + (0x4f - 0x7d) * t,
        b = 0xf6 + (0xb8 - 0xf6) * t;
      const w = 0.085;
      const chevron = Math.min(sdSegment(x, y, -0.5, -0.36, -0.08, 0), sdSegment(x, y, -0.08, 0, -0.5, 0.36)) - w;
      const under = sdSegment(x, y, 0.08, 0.36, 0.52, 0.36) - w;
      const hole = Math.hypot(x - 0.55, y + 0.52) - 0.09; // the tag's eyelet
      const fg = Math.min(1, Math.max(0, 0.5 - Math.min(chevron, under) / (2 * aa)));
      const eyelet = Math.min(1, Math.max(0, 0.5 - hole / (2 * aa)));
      r += (255 - r) * fg;
      g += (255 - g) * fg;
      b += (255 - b) * fg;
      const alpha = bg * (1 - eyelet);
      const o = (j * size + i) * 4;
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
      out[o + 3] = Math.round(alpha * 255);
    }
  }
  return png(size, out);
}

const targets = [
  ['build/icon.png', 512],
  ['build/icons/256x256.png', 256],
  ['build/icons/512x512.png', 512],
  ['renderer/assets/icon.png', 64],
];
for (const [rel, size] of targets) {
  const p = join(root, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, draw(size));
}
console.log('icons written');

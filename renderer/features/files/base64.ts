// Bytes ⇄ base64 in the renderer (no Buffer there), in slices so a 512 KiB chunk never builds a
// call with half a million arguments.

const SLICE = 0x8000;

export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += SLICE) bin += String.fromCharCode(...bytes.subarray(i, i + SLICE));
  return btoa(bin);
}

export function fromBase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

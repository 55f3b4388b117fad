import { FILE_CHUNK_BYTES, type FileEntry } from '../../../src/common/files/contract.js';
import type { Api } from '../../lib/api.js';
import { h } from '../../lib/dom.js';
import { fromBase64, toBase64 } from './base64.js';
import { fileErrorText } from './errorWords.js';
import { settleTransfer, type TransferView } from './transferView.js';

// How the file panel moves a file's bytes: in FILE_CHUNK_BYTES chunks over the typed calls, a
// few at a time, until done or until the transfer is no longer running (cancelled, failed).
// A failure settles the transfer's view with the reason; nothing here throws.

/** Chunk calls in flight per transfer: enough to keep the link busy, few enough to stay responsive. */
const IN_FLIGHT = 4;

export async function uploadFile(api: Api, v: TransferView, sessionId: string, dir: string, file: File, replace: boolean): Promise<void> {
  try {
    await api.call('files.upload', { sessionId, transferId: v.id, dir, name: file.name, size: file.size, replace });
    await pump(v, offsetsOf(file.size), async (offset) => {
      const data = toBase64(new Uint8Array(await file.slice(offset, offset + FILE_CHUNK_BYTES).arrayBuffer()));
      if (v.outcome !== 'running') return;
      await api.call('files.uploadChunk', { transferId: v.id, offset, data });
    });
  } catch (e) {
    if (v.outcome === 'running') settleTransfer(v, 'failed', fileErrorText(e));
  }
}

/** Fetches `entry` of `dir` and hands it to the browser as a download. */
export async function downloadFile(api: Api, v: TransferView, sessionId: string, dir: string, entry: FileEntry): Promise<void> {
  try {
    const { size } = await api.call('files.download', { sessionId, transferId: v.id, dir, name: entry.name });
    const offsets = offsetsOf(size);
    const parts: Uint8Array[] = new Array(offsets.length);
    await pump(v, offsets, async (offset) => {
      const { data } = await api.call('files.downloadChunk', { transferId: v.id, offset });
      parts[offset / FILE_CHUNK_BYTES] = fromBase64(data);
    });
    if (v.outcome === 'cancelled') return;
    save(new Blob(parts as BlobPart[]), entry.name);
    if (v.outcome === 'running') settleTransfer(v, 'done');
  } catch (e) {
    if (v.outcome === 'running') settleTransfer(v, 'failed', fileErrorText(e));
  }
}

function offsetsOf(size: number): number[] {
  const offsets: number[] = [];
  for (let o = 0; o < size; o += FILE_CHUNK_BYTES) offsets.push(o);
  return offsets;
}

/** Runs `step` for every offset with a few in flight; stops once the transfer is no longer running. */
async function pump(v: TransferView, offsets: number[], step: (offset: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < offsets.length && v.outcome === 'running') await step(offsets[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, offsets.length) }, worker));
}

/** Hands the bytes to the browser as a download (Electron asks where to save it). */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  // eslint-disable-next-line no-control-regex -- a file name for the local disk: controls become _
  const a = h('a', { href: url, download: name.replace(/[\u0000-\u001f\u007f]/g, '_'), hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

import { setFlagsFromString } from 'node:v8';

// A `tagssh` process spends its life moving bytes (cp, tunnel, ssh streams), and every SSH packet,
// socket read and SFTP message is a fresh Buffer outside V8's heap. That external memory makes V8
// start an incremental mark of the whole heap (the AWS SDK's thousands of functions included) for
// every ~64 MiB moved: 75–86 full marks per 512 MiB `tagssh cp`, which doubled its CPU time
// (`node --trace-gc`, measured with perf/sections/files.mjs' data). Without incremental marking
// the same copy needs one full mark (young-generation scavenges free the buffers) and half the
// CPU. The price, an occasional atomic pause of a few milliseconds on a small heap, is invisible on
// a command line; the app's engine runs in its own process and keeps V8's defaults.
// V8 reads this flag each time it considers starting a mark, so setting it at start-up is enough.

/** Switches this process to throughput-first garbage collection (see above). */
export function preferThroughputGc(): void {
  setFlagsFromString('--no-incremental-marking');
}

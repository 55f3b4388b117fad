// Loaded with `node --import` into a process the fault suite measures: on exit it writes the
// process's peak resident memory (KiB, as getrusage reports it) to $TAGSSH_FAULT_RSS_FILE.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const file = process.env.TAGSSH_FAULT_RSS_FILE;
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS));
});

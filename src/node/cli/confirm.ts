import { createInterface } from 'node:readline/promises';
import { AppError } from '../../common/errors.js';
import { escapeControls } from '../../common/safeText.js';

// "Do this? [y/N]" for commands that change an AWS account (security-group rules, stacks).
// --yes answers for scripts; without a terminal to ask on and without --yes, nothing changes.

export async function confirmOrYes(question: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new AppError('CANCELLED', `Not confirmed: ${question}`, 'Run it on a terminal to be asked, or pass --yes.');
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${escapeControls(question)} [y/N] `)).trim().toLowerCase();
    if (answer !== 'y' && answer !== 'yes') throw new AppError('CANCELLED', 'Cancelled: nothing was changed.');
  } finally {
    rl.close();
  }
}

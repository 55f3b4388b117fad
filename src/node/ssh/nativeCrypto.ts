import ssh2Crypto from 'ssh2/lib/protocol/crypto.js';

// ssh2 encrypts with its compiled addon when it loaded (AES-GCM and ChaCha20-Poly1305 in C++), else
// with node:crypto one packet at a time: several times the CPU per byte moved. The addon is built
// by ssh2's install script, which npm runs only where package.json's allowScripts approves it, and
// the CLI bundle requires it by its package path (scripts/build.mjs): either can go wrong silently.
// This import is the very module ssh2's client uses (same file, so the same module in a bundle).

/** Whether ssh2's compiled crypto addon is in use in this process. */
export const sshNativeCrypto: boolean = ssh2Crypto.bindingAvailable === true;

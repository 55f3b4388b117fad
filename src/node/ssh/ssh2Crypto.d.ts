// The one internal module of ssh2 that TagSSH reads (nativeCrypto.ts); @types/ssh2 does not cover it.
declare module 'ssh2/lib/protocol/crypto.js' {
  const crypto: { readonly bindingAvailable: boolean };
  export default crypto;
}

/** The one IPC channel between the preload bridge and the main process. */
export const RPC_CHANNEL = 'tagssh:rpc';
/** The origin the UI is served from (custom protocol; never file:// or http://). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'tagssh';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY = `${APP_ORIGIN}/index.html`;

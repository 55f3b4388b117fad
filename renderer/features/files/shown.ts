import { escapeControls } from '../../../src/common/safeText.js';

/** A server name as the panel shows it: controls and direction overrides visible, never acted on. */
export const shown = (name: string) => escapeControls(name);

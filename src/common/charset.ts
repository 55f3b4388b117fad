import * as z from 'zod';

// The character sets a terminal session can speak: UTF-8, and the two that older Japanese
// servers still use (Tera Term's Setup → General → Coding). One definition for the contract,
// the engine's converters and the tab's menu.

export const CHARSETS = ['utf-8', 'shift_jis', 'euc-jp'] as const;
export type Charset = (typeof CHARSETS)[number];
export const CharsetSchema = z.enum(CHARSETS);
export const DEFAULT_CHARSET: Charset = 'utf-8';

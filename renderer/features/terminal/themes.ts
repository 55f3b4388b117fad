import type { ITheme } from '@xterm/xterm';
import type { TerminalTheme } from '../../../src/common/model/settings.js';

export const TERMINAL_THEMES: Record<TerminalTheme, ITheme> = {
  dark: {
    background: '#0f141a',
    foreground: '#d8dee9',
    cursor: '#8fbcbb',
    selectionBackground: '#3b4a5a',
    black: '#1b222b', red: '#e06c75', green: '#98c379', yellow: '#e5c07b', blue: '#61afef', magenta: '#c678dd', cyan: '#56b6c2', white: '#d8dee9',
    brightBlack: '#5c6370', brightRed: '#ef8891', brightGreen: '#b5e08f', brightYellow: '#f0d197', brightBlue: '#82c1f5', brightMagenta: '#d69be6', brightCyan: '#7ccdd6', brightWhite: '#ffffff',
  },
  light: {
    background: '#fbfbfa',
    foreground: '#24292f',
    cursor: '#0969da',
    selectionBackground: '#c8dcf5',
    black: '#24292f', red: '#cf222e', green: '#116329', yellow: '#7d4e00', blue: '#0969da', magenta: '#8250df', cyan: '#1b7c83', white: '#6e7781',
    brightBlack: '#57606a', brightRed: '#a40e26', brightGreen: '#1a7f37', brightYellow: '#633c01', brightBlue: '#218bff', brightMagenta: '#a475f9', brightCyan: '#3192aa', brightWhite: '#8c959f',
  },
};

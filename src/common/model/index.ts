export * from './instance.js';
export * from './settings.js';

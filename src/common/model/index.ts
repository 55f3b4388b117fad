export * from './instance.js';

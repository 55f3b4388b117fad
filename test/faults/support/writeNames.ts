// What the kill -9 writer (writer.ts) writes for its i-th write, so the checker can look for it.
export const resultId = (i: number) => `res-${String(i).padStart(8, '0')}`;
export const hostId = (i: number) => `i-${i.toString(16).padStart(17, '0')}`;
export const portFor = (i: number) => 1 + (i % 65000);

// Every domain's tables, for drizzle's typed client and drizzle-kit.
export * from '../apps/tables.js';
export * from '../auth/tables.js';
export * from '../analytics/tables.js';
export * from '../video/tables.js';
export * from '../scheduling/tables.js';
export * from '../sends/tables.js';
export * from '../webhooks/tables.js';
export * from '../events/tables.js';
export * from './tables.js';

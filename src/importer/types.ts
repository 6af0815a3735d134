import type { ImportType } from './ndjson.js';

// Every domain's NDJSON record types (DESIGN section 5), in dependency order.
export const importTypes: readonly ImportType[] = [];

import { campaignImport, messageImport, templateImport } from '../analytics/import.js';
import { agentImport, availabilityExceptionImport, bookingPolicyImport, dndImport, scheduledCallImport } from '../scheduling/import.js';
import { catalogImport, productImport } from '../sends/import.js';
import { videoCallImport } from '../video/import.js';
import type { ImportType } from './ndjson.js';

// Every domain's NDJSON record types, in dependency order.
export const importTypes: readonly ImportType[] = [
  campaignImport,
  messageImport,
  templateImport,
  agentImport,
  bookingPolicyImport,
  availabilityExceptionImport,
  dndImport,
  scheduledCallImport,
  videoCallImport,
  catalogImport,
  productImport,
] as ImportType[];

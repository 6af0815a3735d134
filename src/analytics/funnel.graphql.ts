import { builder } from '../graphql/builder.js';
import type { FunnelCounts } from './funnel.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type FieldBuilder<Shape> = PothosSchemaTypes.ObjectFieldBuilder<Types, Shape>;

/** The funnel counts (sent, delivered, read, failed) of any object type carrying them. */
export const funnelCountFields = <Shape extends Omit<FunnelCounts, 'cost'>>(t: FieldBuilder<Shape>) => ({
  sent: t.int({ description: 'Messages sent (sent + delivered + read).', resolve: (parent) => parent.sent }),
  delivered: t.int({ description: 'Messages delivered (delivered + read).', resolve: (parent) => parent.delivered }),
  read: t.int({ description: 'Messages read.', resolve: (parent) => parent.read }),
  failed: t.int({ description: 'Messages that failed.', resolve: (parent) => parent.failed }),
});

/** The counts and cost: Funnel, DailyMetric and SummaryMetrics share them. */
export const funnelFields = <Shape extends FunnelCounts>(t: FieldBuilder<Shape>) => ({
  ...funnelCountFields(t),
  cost: t.float({ description: 'Summed message cost.', resolve: (parent) => parent.cost }),
});

import { eq } from 'drizzle-orm';
import { builder } from '../graphql/builder.js';
import { notFound } from '../errors/app-error.js';
import { apps, type AppRow } from './tables.js';
import { asNode } from '../graphql/node.js';

export const AppRef = builder.objectRef<AppRow>('App').implement({
  description: 'A tenant: every analytics, scheduling and video record belongs to one app.',
  fields: (t) => ({
    appId: t.exposeID('id', { description: 'The app id (UUID), its raw id.' }),
    name: t.exposeString('name', { description: "The app's display name." }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone of the app (app_timezone of scheduled calls).' }),
    createdAt: t.expose('createdAt', { description: 'When it was created (ISO 8601 UTC).', type: 'DateTime' }),
  }),
});

builder.queryField('app', (t) =>
  t.field({
    type: AppRef,
    description: 'One app the token may access. Needs any valid token with the app in its apps claim.',
    args: { appId: t.arg({ description: "The app (UUID); must be in the token's apps.", type: 'UUID', required: true }) },
    authScopes: (_root, args) => ({ app: args.appId }),
    resolve: async (_root, args, ctx) => {
      const [row] = await ctx.runtime.database.db.select().from(apps).where(eq(apps.id, args.appId)).limit(1);
      if (!row) throw notFound('App');
      return row;
    },
  }),
);

asNode(AppRef, { table: apps, appId: apps.id, id: apps.id, uuid: true, appIdOf: (row) => row.id, rawIdOf: (row) => row.id });

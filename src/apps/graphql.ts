import DataLoader from 'dataloader';
import { inArray } from 'drizzle-orm';
import { builder, UUID_PATTERN } from '../graphql/builder.js';
import { notFound, validationFailed } from '../errors/app-error.js';
import { loader, type RequestContext } from '../runtime.js';
import { apps, type AppRow } from './tables.js';
import { asNode } from '../graphql/node.js';
import { decodeNodeId } from '../graphql/node-id.js';

export const AppRef = builder.objectRef<AppRow>('App').implement({
  description:
    "A tenant: every analytics, scheduling and video record belongs to one app. Its lists (messages, campaigns, templates, scheduledCalls, videoCalls, webhookDeliveries...) are the root fields of the same name for this app, with the same scopes.",
  fields: (t) => ({
    appId: t.exposeID('id', { description: 'The app id (UUID), its raw id.' }),
    name: t.exposeString('name', { description: "The app's display name." }),
    timezone: t.exposeString('timezone', { description: 'IANA time zone of the app (app_timezone of scheduled calls).' }),
    createdAt: t.expose('createdAt', { description: 'When it was created (ISO 8601 UTC).', type: 'DateTime' }),
  }),
});

/** App rows by id, every id of one request in one query (viewer.apps and app(id:) share it). */
export function appLoader(ctx: RequestContext) {
  return loader(
    ctx,
    'apps',
    () =>
      new DataLoader<string, AppRow | undefined>(async (ids) => {
        const rows = await ctx.runtime.database.db.select().from(apps).where(inArray(apps.id, [...ids]));
        const byId = new Map(rows.map((row) => [row.id, row]));
        return ids.map((id) => byId.get(id));
      }),
  );
}

/**
 * The app app(...) names: `id` (the App's global id, or its raw UUID) or `appId` (the raw UUID),
 * exactly one of them. Checked before the scope rule reads it, so a wrong id is a validation error.
 */
function requestedApp(args: { id?: string | null; appId?: string | null }): string {
  const given = (value: string | null | undefined) => value !== undefined && value !== null;
  if (given(args.id) && given(args.appId)) throw validationFailed([{ field: 'id', code: 'invalid_value', message: 'give id or appId, not both' }]);
  if (given(args.appId)) return args.appId!;
  if (!given(args.id)) throw validationFailed([{ field: 'id', code: 'required', message: 'Required' }]);
  const id = args.id!;
  if (UUID_PATTERN.test(id)) return id.toLowerCase();
  let decoded: { typename: string; id: string } | undefined;
  try {
    decoded = decodeNodeId(id);
  } catch {
    decoded = undefined;
  }
  if (decoded?.typename !== 'App' || !UUID_PATTERN.test(decoded.id)) throw validationFailed([{ field: 'id', code: 'invalid_value', message: 'must be the id of an App or an app UUID' }]);
  return decoded.id.toLowerCase();
}

builder.queryField('app', (t) =>
  t.field({
    type: AppRef,
    description:
      "One app the token may access, by `id` (its global id or raw UUID) or by `appId` (the raw UUID, kept for existing clients); exactly one of them. Needs any valid token with the app in its apps claim.",
    args: {
      id: t.arg({ description: "The App's `id`, or its raw UUID; must be in the token's apps.", type: 'ID' }),
      appId: t.arg({ description: "The app (UUID); must be in the token's apps. Same as id; kept for existing clients.", type: 'UUID' }),
    },
    authScopes: (_root, args) => ({ app: requestedApp(args) }),
    resolve: async (_root, args, ctx) => {
      const row = await appLoader(ctx).load(requestedApp(args));
      if (!row) throw notFound('App');
      return row;
    },
  }),
);

asNode(AppRef, { table: apps, appId: apps.id, id: apps.id, uuid: true, appIdOf: (row) => row.id, rawIdOf: (row) => row.id });

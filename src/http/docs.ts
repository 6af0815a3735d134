import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { GraphQLSchema } from 'graphql';
import type { Hono } from 'hono';
import { AppError } from '../errors/app-error.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import type { RestRoute } from '../rest/adapter.js';
import type { Runtime } from '../runtime.js';
import { gatewayRoutes, V1_PREFIX, videoHostRoutes } from '../rest/routes.js';
import { compressAsset, serveAsset, type CompressedAsset } from './compressed-asset.js';
import { methodNotAllowed } from '../errors/envelope.js';
import type { HttpEnv } from '../web/hono-env.js';

// GET /api/v1/openapi.json (no auth) and the interactive reference at /docs: Swagger UI from
// the swagger-ui-dist package, served from this process (no CDN; the page works offline).

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const assets: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Switchboard REST API reference</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: no call to an outside validator service; the document is validated in CI.
const init = `window.ui = SwaggerUIBundle({
  url: '/api/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: true,
  displayOperationId: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
});
`;

/** Mounts /docs on the main app and /openapi.json on v1 (call before v1's auth middleware). */
export function mountDocs(app: Hono<HttpEnv>, v1: Hono<HttpEnv>, runtime: Runtime, schema: GraphQLSchema, routes: readonly RestRoute[]): void {
  let document: string | undefined;
  const json = () =>
    (document ??= JSON.stringify(
      buildOpenApiDocument({
        schema,
        routes,
        videoRoutes: videoHostRoutes,
        publicUrl: runtime.config.PUBLIC_URL,
        videoUrl: `http://localhost:${runtime.config.VIDEO_PORT || 3001}`,
      }),
    ));
  const { openapi, docs, docsInit, docsAssets } = gatewayRoutes;
  const openapiPath = openapi.path.slice(V1_PREFIX.length);
  v1.get(openapiPath, (c) => c.body(json(), 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' }));
  v1.all(openapiPath, methodNotAllowed(openapi.methods));
  app.get(docs.path, (c) => c.html(page));
  app.all(docs.path, methodNotAllowed(docs.methods));
  app.get(docsInit.path, (c) => c.body(init, 200, { 'content-type': 'text/javascript; charset=utf-8' }));
  app.all(docsInit.path, methodNotAllowed(docsInit.methods));
  // Read and compressed once per file (a closed set), then served from memory by ETag.
  const compressed = new Map<string, Promise<CompressedAsset>>();
  app.get(docsAssets.path, async (c) => {
    const file = c.req.param('file');
    const type = assets[file];
    if (!type) throw new AppError('not_found', 'No such file');
    let asset = compressed.get(file);
    if (!asset) compressed.set(file, (asset = readFile(join(swaggerDir, file)).then((content) => compressAsset(content, type))));
    try {
      return serveAsset(c, await asset, 'public, max-age=86400');
    } catch (error) {
      compressed.delete(file);
      throw error;
    }
  });
  app.all(docsAssets.path, methodNotAllowed(docsAssets.methods));
}

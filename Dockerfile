# syntax=docker/dockerfile:1
# Switchboard's production image. The build stage runs the same install, build and prune commands
# as scripts/release-smoke.sh, which CI runs on a fresh clone (test/release/dockerfile.test.ts
# keeps the two identical); the runtime stage holds dist/, the migrations and production
# dependencies only, and runs as the unprivileged `node` user.

FROM node:24-slim AS build
WORKDIR /app
# The lockfile and patches first: the dependency layer is reused while only sources change.
COPY package.json package-lock.json ./
COPY patches ./patches
# BEGIN production install
RUN npm ci --no-audit --no-fund --loglevel=error
COPY . .
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund --loglevel=error
# END production install

FROM node:24-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    VIDEO_PORT=3001 \
    DEMO=0
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/migrations ./migrations
COPY --from=build /app/scripts/build-if-stale.mjs ./scripts/build-if-stale.mjs
# Embedded storage (no DATABASE_URL) writes DATA_DIR: the one directory the user may write.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE ${PORT} ${VIDEO_PORT}
# /readyz answers 200 once the database does (503 otherwise).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/src/main.js"]

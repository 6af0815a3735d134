import { closeRuntime, createRuntime } from './boot.js';
import { loadConfig } from './config.js';
import { bootstrapDemo, demoBanner } from './demo/bootstrap.js';
import { startServers } from './http/server.js';
import { createLogger } from './log.js';

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);

try {
  const runtime = await createRuntime(config, logger);
  const demo = config.DEMO ? await bootstrapDemo(runtime) : undefined;
  const servers = await startServers(runtime, { main: config.PORT, video: config.VIDEO_PORT, host: config.HOST });
  const baseUrl = config.PUBLIC_URL ?? `http://localhost:${servers.mainPort}`;
  logger.info({ port: servers.mainPort, videoPort: servers.videoPort, metricsPort: servers.metricsPort, storage: runtime.database.kind }, 'switchboard listening');
  if (demo) process.stdout.write(demoBanner(demo, baseUrl) + '\n');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    await servers.close();
    await closeRuntime(runtime);
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
} catch (error) {
  logger.fatal({ err: error }, error instanceof Error ? error.message : 'failed to start');
  process.exit(1);
}

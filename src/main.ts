// First: V8 flags must be set before the service's modules allocate (src/v8-flags.ts).
import './v8-flags.js';
import { closeRuntime, createRuntime } from './boot.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { bootstrapDemo, demoBanner } from './demo/bootstrap.js';
import { startServers } from './http/server.js';
import { createLogger } from './log.js';

// A bad setting is the operator's to fix: one line on stderr and exit 1, not an uncaught
// error's stack trace (nor a fatal log line with one).
function refuse(error: ConfigError): never {
  process.stderr.write(`error: ${error.message}\n`);
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) refuse(error);
  throw error;
}
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
  if (error instanceof ConfigError) refuse(error); // e.g. JWT_PRIVATE_JWK refused by the key store
  logger.fatal({ err: error }, error instanceof Error ? error.message : 'failed to start');
  process.exit(1);
}

import { pino, type Logger } from 'pino';

export type { Logger };

// Structured JSON logs on stdout, one object a line, so any log collector can parse them.
export function createLogger(level: string, fd: 1 | 2 = 1): Logger {
  return pino(
    {
    level,
    base: { service: 'switchboard' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: ['req.headers.authorization', '*.client_secret', '*.access_token'],
    },
    pino.destination({ fd, sync: fd === 2 }),
  );
}

import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Writable } from 'node:stream';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI from source as its own process, on the embedded database under `dataDir` (a
 * test server's in-memory database is not shared with another process). `stdin` is either the
 * text to send, or a function that writes to the child's stdin and ends it.
 */
export function runCli(
  dataDir: string,
  args: string[],
  options: { env?: Record<string, string>; stdin?: string | ((stdin: Writable) => void) } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      env: { ...process.env, DATABASE_URL: '', DATA_DIR: path.join(dataDir, 'db'), LOG_LEVEL: 'warn', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    // The CLI may exit (refusing its input) before it has read all of it.
    child.stdin.on('error', () => {});
    if (typeof options.stdin === 'function') options.stdin(child.stdin);
    else child.stdin.end(options.stdin ?? '');
  });
}

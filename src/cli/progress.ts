/** Progress on stderr (stdout carries the one JSON result), redrawn at most every 200 ms. */
export function progressLine(label: string) {
  let last = 0;
  return (text: string, done = false) => {
    const now = Date.now();
    if (!done && now - last < 200) return;
    last = now;
    if (process.stderr.isTTY) process.stderr.write(`\r${label}: ${text}${done ? '\n' : ''}`);
    else if (done) process.stderr.write(`${label}: ${text}\n`);
    else process.stderr.write(`${label}: ${text}\n`);
  };
}

/** A bar for work of known size: [#####.....] 50% 500,000/1,000,000 */
export function progressBar(label: string, total: number) {
  const line = progressLine(label);
  return (done: number) => {
    const fraction = total === 0 ? 1 : Math.min(1, done / total);
    const width = 30;
    const filled = Math.round(fraction * width);
    line(`[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(fraction * 100)}% ${done.toLocaleString('en')}/${total.toLocaleString('en')}`, done >= total);
  };
}

// The part of autocannon's API the harness uses (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      /** Each connection sends these in turn; setupRequest may rewrite one before it is sent. */
      requests?: { setupRequest?: (req: Record<string, unknown>) => Record<string, unknown> }[];
    }
    interface Histogram {
      average: number;
      total: number;
      p50: number;
      p99: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      errors: number;
      timeouts: number;
      non2xx: number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}

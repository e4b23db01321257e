/** Minimal typing of autocannon (the package ships none). */
declare module 'autocannon' {
  interface Result {
    requests: { average: number };
    latency: { p99: number; p50: number; average: number };
    non2xx: number;
    errors: number;
  }
  function autocannon(opts: { url: string; connections?: number; duration?: number; amount?: number }): Promise<Result>;
  export default autocannon;
}

/**
 * Node flags the daemon process runs with, for every launcher: the service units
 * (ops/service-files.ts), `start --detach` (cli/commands/start.ts) and the daemon benchmark.
 * A young generation of at most DAEMON_SEMI_SPACE_MB per semi-space instead of V8's 16 MB: the
 * daemon allocates in short bursts (an exchange, the keyword index build, an index run's refresh)
 * and then idles, and after a burst V8 keeps the grown young generation resident (a reader of a
 * 10k-chunk store with its keyword index built: RSS 220 → 197 MB at 2 MB, 198 MB at 4 MB; the
 * daemon bench: idle RSS 224–276 MB → 181–183 MB; docs/DAEMON.md). Pure constants.
 */
export const DAEMON_SEMI_SPACE_MB = 2;
export const DAEMON_NODE_FLAGS = [`--max-semi-space-size=${DAEMON_SEMI_SPACE_MB}`] as const;

/**
 * Node flags the daemon process runs with, for every launcher: the service units
 * (ops/service-files.ts), `start --detach` (cli/commands/start.ts) and the daemon benchmark.
 * A young generation of at most DAEMON_SEMI_SPACE_MB per semi-space instead of V8's 16 MB: the
 * daemon allocates in short bursts (an exchange, the keyword index build, an index run's refresh)
 * and then idles, and after a burst V8 keeps the grown young generation resident (a reader of a
 * 10k-chunk store with its keyword index built: RSS 220 → 197 MB at 2 MB, 198 MB at 4 MB; the
 * daemon bench: idle RSS 224–276 MB → 181–183 MB; docs/DAEMON.md). --expose-gc lets the daemon
 * run one full collection when it turns quiet after work (daemon/idle-gc.ts: start-up leaves
 * ~80 MB of garbage an idle V8 may keep for minutes).
 *
 * DAEMON_ENV, set by the same launchers where the caller did not set it: glibc's malloc with a
 * fixed mmap threshold and trim threshold of MALLOC_THRESHOLD_BYTES. By default glibc raises
 * its mmap threshold (up to 32 MB) each time a large mmapped block is freed — start-up frees
 * the model's 32 MB buffers — after which large blocks come from the heap, and memory freed
 * there stays resident. Fixed, large blocks are mmapped and unmapped when freed. A daemon with
 * a 10k-chunk store, idle after the GC above: RSS 164–166 → 147–152 MB (docs/DAEMON.md). And
 * one malloc arena (MALLOC_ARENA_MAX = DAEMON_MALLOC_ARENAS) instead of up to 8 per core: the
 * daemon's other threads (libuv's pool, V8's workers, the ONNX runtime's) allocate little, and
 * each arena of their own kept its freed blocks resident; the daemon bench, three runs each:
 * idle RSS 146 / 145 / 146 → 142 / 143 / 142 MB, catch-up and reaction times no worse
 * (docs/DAEMON.md, fourth pass). Other C libraries (macOS) ignore the variables. Pure constants.
 */
export const DAEMON_SEMI_SPACE_MB = 2;
export const DAEMON_NODE_FLAGS = [`--max-semi-space-size=${DAEMON_SEMI_SPACE_MB}`, '--expose-gc'] as const;

/** glibc's default mmap threshold (128 KiB), fixed instead of raised (see the header). */
export const MALLOC_THRESHOLD_BYTES = 128 * 1024;
/** glibc malloc arenas the daemon may use (see the header). */
export const DAEMON_MALLOC_ARENAS = 1;
export const DAEMON_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: String(MALLOC_THRESHOLD_BYTES),
  MALLOC_TRIM_THRESHOLD_: String(MALLOC_THRESHOLD_BYTES),
  MALLOC_ARENA_MAX: String(DAEMON_MALLOC_ARENAS),
};

/** The daemon's environment: `env` with DAEMON_ENV's variables where `env` sets none. */
export function daemonEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...DAEMON_ENV, ...env };
}

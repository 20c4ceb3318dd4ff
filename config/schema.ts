/**
 * The configuration schema (zod): every tunable of active-brain, its default and what it
 * means. Sources are merged by config/load.ts (defaults < state-dir config.json < env < flags).
 * Each section below is owned by one part of the product; keep comments honest.
 */
import { z } from 'zod';
import { MODE_STATES } from '../shared/vocabulary.js';
import { isScheduleInterval, MINUTES_PER_DAY, SCHEDULE_HOURS, SCHEDULE_MINUTES } from '../shared/schedule.js';
import { DEFAULT_ENV_MARKER, DEFAULT_UNATTENDED, DEFAULT_WORKER_ENTRYPOINTS, UNATTENDED_POLICIES } from '../shared/workers.js';

/** A user-written regular expression compiles (redact.patterns / redact.allow). */
function isRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

/** A question still needs a drift score this far above the session's usual (z units):
 *  driftQuestionBonus may be at most driftZ minus this (checked when the config loads). */
export const DRIFT_QUESTION_MARGIN = 0.5;

/** Who runs the scheduled index (indexer.schedule). */
export const INDEX_SCHEDULERS = ['service', 'daemon'] as const;
export type IndexScheduler = (typeof INDEX_SCHEDULERS)[number];

/** A mode's tool channel (PostToolUseFailure / PostToolUse: the Past fix at the failure and
 *  the in-turn loop). Its own rollout state, budget and gaps; the offers it has shown are
 *  shared with the prompt channel (a chunk is shown once per session, on either channel).
 *  Defaults: an agentic session makes ~200 tool calls between 3–4 prompts, so the budget is
 *  counted in offers per session and the gap in tool events; docs/HOOK.md says why. */
export const ToolChannelSchema = z
  .object({
    /** soak: never print, log would-fire. live: print. off: neither. Starts in soak. */
    state: z.enum(MODE_STATES).default('soak'),
    /** Tool-channel offers below this confidence are never printed. A Past fix from an
     *  exact signature of a resolved episode scores ≥ 0.8 (docs/PASTFIX.md); near matches
     *  and unresolved episodes score below this. */
    minConfidence: z.number().min(0).max(1).default(0.7),
    /** At most this many printed tool-channel offers per session. */
    sessionBudget: z.number().int().min(0).default(5),
    /** At least this many tool events (as the hook counts them: in Claude Code only failures
     *  reach it) between two tool offers. 1: the next failure may have its own offer (the
     *  seconds gap, the budget and no-repeat still hold); docs/HOOK.md. */
    minGapSteps: z.number().int().min(0).default(1),
    /** At least this many seconds between two tool offers at the same error (signature) in
     *  one session; another error may have its own at once (the budget, the steps gap and
     *  no-repeat still hold): docs/HOOK.md. */
    minGapSeconds: z.number().min(0).default(30),
  })
  .strict();
export type ToolChannel = z.infer<typeof ToolChannelSchema>;

/** A mode: thresholds, budgets and rollout state for a set of sessions (matched by cwd). */
export const ModeSchema = z
  .object({
    /** The prompt channel (UserPromptSubmit). soak: never print, log would-fire. live:
     *  print. off: neither. Every mode starts in soak. */
    state: z.enum(MODE_STATES).default('soak'),
    /** The tool channel (see ToolChannelSchema). */
    tool: ToolChannelSchema.default({}),
    /** Sessions this mode applies to, by their cwd (globs; `**` = every cwd). First match wins. */
    cwdGlobs: z.array(z.string().min(1)).default(['**']),
    /** Offers below this confidence (0–1) are never printed. */
    minConfidence: z.number().min(0).max(1).default(0.55),
    /** At most this many printed offers per session. */
    sessionBudget: z.number().int().min(0).default(3),
    /** At least this many prompts between two printed offers in one session. */
    minGapTurns: z.number().int().min(0).default(4),
    /** At least this many seconds between two printed offers in one session. */
    minGapSeconds: z.number().min(0).default(300),
    /** Drift trigger (core/triggers.ts, docs/TRIGGERS.md): the newest exchange is compared
     *  with the prompts of the last 2 exchanges by mean cosine and by lexical cohesion (shared
     *  content words), each a robust z (median/MAD of the session's own recent values), and
     *  the dialogue cues are added:
     *    score = −z(cosine) − driftLexicalWeight·z(cohesion)
     *            + driftQuestionBonus·[prompt asks] − driftAnswerPenalty·[it answers a question]
     *  Drift fires when the score reaches this. Scale-free across embedding models. The four
     *  drift values were chosen together by 5-fold cross-validation on TIAGE train only. */
    driftZ: z.number().min(0).default(3.0),
    /** Drift also needs the cosine part at or below this quantile of the session's own
     *  history (1 = no such condition; the default: it did not help on TIAGE train). */
    driftMaxQuantile: z.number().min(0).max(1).default(1.0),
    /** Weight of lexical cohesion (robust z of the share of content words the newest exchange
     *  shares with the recent prompts) in the drift score; 0 = vectors only. */
    driftLexicalWeight: z.number().min(0).default(0.5),
    /** Added to the drift score when the prompt asks a question (core/dialogue-cues.ts): a
     *  question is how a new topic is usually opened. At most driftZ − 0.5 (refused at load
     *  otherwise), so a question as similar as the session's usual prompts never fires: it
     *  must still be less like the recent prompts than usual. 0 = no cue. */
    driftQuestionBonus: z.number().min(0).default(2.5),
    /** Subtracted from the drift score when the prompt follows a question from the other
     *  side (the reply before it ended asking): an answer continues the topic. 0 = no cue. */
    driftAnswerPenalty: z.number().min(0).default(2.0),
    /** Stall trigger: the smallest pairwise cos across the last `stallWindow` exchanges
     *  (every exchange resembles every other) above the session's own baseline by this many
     *  robust SDs (also the flow-repair guard's bar for "the user side repeats"). Repeated
     *  near-identical tool calls across the whole window fire the stall on their own. */
    stallZ: z.number().min(0).default(3.0),
    /** Stall (vector evidence) also needs the window similarity at or above this upper
     *  quantile of the session's history (0 = a new maximum). */
    stallMaxQuantile: z.number().min(0).max(1).default(0.1),
    /** Exchanges in the stall window (and repeats of the same tool call that count as a stall). */
    stallWindow: z.number().int().min(2).default(3),
  })
  .strict()
  .superRefine((m, ctx) => {
    // The silence guarantee of the question cue: a question alone, as similar as the
    // session's usual prompts, must never fire (docs/TRIGGERS.md).
    if (m.driftQuestionBonus > 0 && m.driftQuestionBonus > m.driftZ - DRIFT_QUESTION_MARGIN) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['driftQuestionBonus'],
        message:
          `must be at most driftZ − ${DRIFT_QUESTION_MARGIN} (driftZ is ${m.driftZ}), or every question would fire drift; ` +
          `lower driftQuestionBonus to ${Math.max(0, m.driftZ - DRIFT_QUESTION_MARGIN)} or raise driftZ to ${m.driftQuestionBonus + DRIFT_QUESTION_MARGIN}`,
      });
    }
  });
export type Mode = z.infer<typeof ModeSchema>;

export const ConfigSchema = z
  .object({
    /** Where Claude Code writes transcripts. Default: $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects. */
    transcriptsRoot: z.string().min(1).optional(),
    /** Where Codex CLI writes rollouts (tailed by the same daemon, answered by the same hook).
     *  Default: $CODEX_HOME/sessions or ~/.codex/sessions — where Codex itself writes them
     *  (docs/CODEX.md). Env: ACTIVE_BRAIN_CODEX_SESSIONS. */
    codexSessionsRoot: z.string().min(1).optional(),
    embedding: z
      .object({
        /** Local model: a transformers.js model id (downloaded once into <home>/models; unset =
         *  Xenova/all-MiniLM-L6-v2, embed/embedder.ts DEFAULT_LOCAL_MODEL). With `url`: the
         *  `model` field sent to the server (Ollama, vLLM and OpenAI need it; llama.cpp
         *  ignores it) and part of the model id the store records. */
        model: z.string().min(1).optional(),
        /** A local transformers.js model folder: used fully offline when set. */
        localModelPath: z.string().min(1).optional(),
        /** An OpenAI-compatible embeddings server (llama.cpp server, Ollama, vLLM, OpenAI):
         *  when set it replaces the local model. `http://host:port`, `…/v1` or the full
         *  `…/v1/embeddings` (embed/server.ts, docs/EMBEDDING.md). The store records
         *  `server:<host>/<model>` and the dimension the server answers with. */
        url: z.string().url().optional(),
        /** Name of the environment variable that holds the server's API key, sent as a bearer
         *  token when that variable is set (never the key itself in config). */
        apiKeyEnv: z.string().min(1).default('ACTIVE_BRAIN_EMBEDDING_KEY'),
        /** Put before every query text (a search, the daemon's exchanges) sent to the server,
         *  e.g. EmbeddingGemma's `task: search result | query: `. Empty: none. A change needs
         *  a re-index only for documentPrefix. */
        queryPrefix: z.string().default(''),
        /** Put before every document text (an indexed chunk) sent to the server, e.g.
         *  EmbeddingGemma's `title: none | text: `. Changing it means re-indexing (--rebuild). */
        documentPrefix: z.string().default(''),
        /** Deadline of one server call (one batch), ms. A CPU llama.cpp server embeds a batch
         *  of 32 chunks of ~1500 chars in 1–5 s; 30 s leaves room for a cold start. */
        timeoutMs: z.number().int().min(100).default(30_000),
        /** Texts per embedding call (one server request with `url`). */
        batchSize: z.number().int().min(1).max(512).default(32),
        /** Characters kept of one text before embedding (the model truncates tokens too). */
        maxChars: z.number().int().min(64).default(2000),
        /** Use the quantized ONNX weights (smaller, faster). */
        quantized: z.boolean().default(true),
      })
      .strict()
      .default({}),
    store: z
      .object({
        /** Knowledge store file. Default: <home>/store.sqlite. */
        path: z.string().min(1).optional(),
        /** Team store: a `postgres://` reader URL (`active-brain store init` prints it) selects the
         *  PostgreSQL store for the daemon, search, recall, MCP and status instead of the file.
         *  Env ACTIVE_BRAIN_STORE_URL. Unset (default): the embedded SQLite file. */
        url: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// URL').optional(),
        /** Team store: the writer URL the indexer uses (default: store.url, which must then be a writer). */
        writerUrl: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// URL').optional(),
      })
      .strict()
      .default({}),
    redact: z
      .object({
        /** Your own token formats, redacted at index time like the built-in kinds
         *  (shared/redact-rules.ts): `{"kind": "acme-token", "pattern": "acme_[A-Za-z0-9]{32}"}`;
         *  a named group `v` marks the secret inside a longer match. docs/REDACTION.md. */
        patterns: z
          .array(z.object({ kind: z.string().regex(/^[a-z0-9][a-z0-9-]{0,40}$/, 'lower-case letters, digits and dashes'), pattern: z.string().min(1).refine(isRegex, 'not a valid regular expression') }).strict())
          .default([]),
        /** Values never redacted (regular expressions matched against the whole detected
         *  value): a false positive of your own, e.g. `"sk-test-fixture-[0-9]+"`. */
        allow: z.array(z.string().min(1).refine(isRegex, 'not a valid regular expression')).default([]),
      })
      .strict()
      .default({}),
    indexer: z
      .object({
        /** Largest chunk in characters; longer sections are split on paragraphs. */
        maxChunkChars: z.number().int().min(200).default(1500),
        /** Smallest chunk worth keeping, in characters. */
        minChunkChars: z.number().int().min(1).default(40),
        /** Note files larger than this are skipped (and counted) by the indexer. */
        maxFileBytes: z.number().int().min(1024).default(20 * 1024 * 1024),
        /** Transcript files larger than this are skipped (and counted); they are streamed, so this may be larger. */
        maxTranscriptBytes: z.number().int().min(1024).default(256 * 1024 * 1024),
        /** At most this many exchanges in one transcript chunk that keeps an error with its fix. */
        maxJoinExchanges: z.number().int().min(1).max(10).default(3),
        /** Document titles (a session's first prompt) are cut to this many characters. */
        titleChars: z.number().int().min(10).default(80),
        /** Chunks collected from several files before one embedding call (larger = faster, more memory). */
        embedFlushChunks: z.number().int().min(1).default(256),
        /** A second indexer waits this long for the running one before refusing (ms). */
        lockWaitMs: z.number().int().min(0).default(2000),
        /** A file whose UTF-8 decoding replaces more than this share of characters is treated as binary. */
        maxReplacementShare: z.number().min(0).max(1).default(0.05),
        /** The scheduled index (`active-brain service install`: systemd timer / launchd
         *  StartInterval) runs every this many minutes. It must divide an hour, or be whole hours
         *  that divide a day: the systemd timer fires on the clock (OnCalendar), so a run missed
         *  while the machine slept happens at wake (Persistent=true). 15: a session becomes
         *  findable for Past fix within a quarter hour, and a run with nothing new costs about
         *  0.4 CPU-seconds over 1,000 sessions (bench/schedule.bench.ts): under 0.05% of one core. */
        intervalMinutes: z
          .number()
          .int()
          .min(1)
          .max(MINUTES_PER_DAY)
          .default(15)
          .refine(isScheduleInterval, {
            message: `must divide an hour (${SCHEDULE_MINUTES.join(', ')}) or be whole hours that divide a day (${SCHEDULE_HOURS.map((h) => h * 60).join(', ')})`,
          }),
        /** Who runs the scheduled index: `service` — the user service manager's timer
         *  (`service install`: systemd timer / launchd agent); `daemon` — the daemon itself,
         *  spawning `active-brain index` every intervalMinutes (one run at a time, under the
         *  indexer lock the timer's runs take too). `setup` writes `daemon` where no user
         *  service manager is reachable (containers, WSL, SSH without lingering) and
         *  `service` where it installed the timer; `doctor` checks the one in use. */
        schedule: z.enum(INDEX_SCHEDULERS).default('service'),
      })
      .strict()
      .default({}),
    daemon: z
      .object({
        /** Exit after this many minutes with no transcript activity (0 = never). */
        idleExitMinutes: z.number().min(0).default(0),
        /** Main-loop cycle: canary rewrite, kill-file check, eviction (ms). */
        cycleMs: z.number().int().min(100).default(2000),
        /** Quiet time after the last assistant line before an exchange counts as settled (ms). */
        settleMs: z.number().int().min(0).default(150),
        /** Sessions idle longer than this are evicted from memory (minutes). */
        sessionIdleEvictMinutes: z.number().min(1).default(120),
        /** At most this many sessions in memory (least recently active evicted first). */
        maxSessions: z.number().int().min(1).default(200),
        /** On first sight of a long transcript, only the last this-many bytes seed its state. */
        seedHistoryBytes: z.number().int().min(0).default(2 * 1024 * 1024),
        /** Transcripts found at start that were last written longer ago than this are not
         *  seeded: tailing starts at their end (old sessions are not read at all). 0 = seed all. */
        seedMaxAgeMinutes: z.number().min(0).default(240),
        /** Lines longer than this are skipped (and logged) instead of parsed. */
        maxLineBytes: z.number().int().min(1024).default(8 * 1024 * 1024),
        /** Use polling instead of native file events (network file systems). */
        usePolling: z.boolean().default(false),
        /** Also tail subagent transcripts (`<session>/subagents/*.jsonl`); their lines are
         *  flagged `subagent` and never observed for offers. Off: they are not read at all. */
        watchSubagents: z.boolean().default(false),
        /** While the transcript root is missing, check for it this often (ms). Also the period
         *  of the tailer's safety sweep (stat of every watched file) for missed file events. */
        rootPollMs: z.number().int().min(50).default(2000),
        /** Bytes read per read call when tailing (memory per file read is about this much). */
        readChunkBytes: z.number().int().min(1024).default(64 * 1024),
        /** Line bytes handed to the consumer in one batch (back-pressure unit during catch-up). */
        maxBatchBytes: z.number().int().min(1024).default(1024 * 1024),
        /** An offer cache is valid this many seconds after it was written. */
        cacheTtlSeconds: z.number().int().min(1).default(900),
        /** Housekeeping (daemon/housekeeping.ts) runs at start and then this often (minutes):
         *  expired offer caches, old hook state and dead processes' leftovers are removed. */
        housekeepingMinutes: z.number().min(1).default(60),
        /** The hook's per-session state (budget, gap, offers already shown) is removed once the
         *  session has had no prompt for this many days; a session resumed later starts with a
         *  fresh budget. 0 = keep forever. */
        hookStateRetentionDays: z.number().min(0).default(30),
      })
      .strict()
      .default({}),
    session: z
      .object({
        /** EWMA weight of the newest exchange in the centroid: c ← α·v + (1−α)·c. */
        alpha: z.number().gt(0).lt(1).default(0.3),
        /** EWMA weight of the newest prompt in the prompt anchor (the user side of recent
         *  exchanges; its cosine to the newest exchange is logged as drift_cos). */
        anchorAlpha: z.number().gt(0).lt(1).default(0.7),
        /** Exchange vectors kept per session (ring buffer). */
        historySize: z.number().int().min(4).max(256).default(24),
        /** Past trigger measurements kept per session: the session's own calibration. */
        calibrationSize: z.number().int().min(4).max(1024).default(64),
        /** Exchanges a session needs before any trigger may fire (its own calibration). */
        warmupExchanges: z.number().int().min(1).default(4),
        /** Exchanges to wait after a candidate build before the next one. */
        cooldownTurns: z.number().int().min(0).default(2),
        /** Seconds to wait after a candidate build before the next one. */
        cooldownSeconds: z.number().min(0).default(30),
      })
      .strict()
      .default({}),
    workers: z
      .object({
        /** Sessions whose cwd matches any of these globs are workers: never offered to. */
        cwdGlobs: z.array(z.string()).default([]),
        /** Entrypoints that mark background work (`sdk-cli` for `claude -p`, the Agent SDKs): the
         *  transcript's `entrypoint` (daemon) and CLAUDE_CODE_ENTRYPOINT (hook). shared/workers.ts. */
        entrypoints: z.array(z.string()).default([...DEFAULT_WORKER_ENTRYPOINTS]),
        /** Environment variable set for active-brain's own model calls; the hook refuses when set. */
        envMarker: z.string().default(DEFAULT_ENV_MARKER),
        /** Unattended sessions (CLAUDE_CODE_SESSION_ATTENDED=0): `worker` (default) = never offered
         *  to; `entrypoints` = only the entrypoints list decides (a user's own CI runs). */
        unattended: z.enum(UNATTENDED_POLICIES).default(DEFAULT_UNATTENDED),
      })
      .strict()
      .default({}),
    retrieval: z
      .object({
        /** Hits per query and arm. */
        k: z.number().int().min(1).max(100).default(8),
        /** Reciprocal rank fusion constant. */
        rrfK: z.number().int().min(1).default(60),
        /** Candidates kept from one region after fusion. */
        perRegionCap: z.number().int().min(1).default(2),
        /** Candidate set size after caps. */
        candidates: z.number().int().min(1).default(5),
        /** Evidence sufficiency below this → silence. */
        minSufficiency: z.number().min(0).max(1).default(0.5),
        /** Chance of adding one wander wildcard from lower ranks of another region. */
        wanderProbability: z.number().min(0).max(1).default(0.1),
        /** Chunks offered (or would-fire offered) stay excluded for this many later offers. */
        dedupWindow: z.number().int().min(0).default(20),
        /** A candidate build stops starting new extracted-string queries this many ms after the
         *  first one started (the exchange and vector queries and the first string — the error's
         *  when there is one — always run; 0 = only those); bounds the latency tail. */
        queryBudgetMs: z.number().min(0).default(40),
      })
      .strict()
      .default({}),
    reasoner: z
      .object({
        enabled: z.boolean().default(false),
        /** `openai` (chat completions) or `anthropic` (Messages API). */
        api: z.enum(['openai', 'anthropic']).default('openai'),
        url: z.string().url().optional(),
        model: z.string().min(1).optional(),
        /** Name of the environment variable that holds the API key (never the key itself). */
        apiKeyEnv: z.string().default('ACTIVE_BRAIN_REASONER_KEY'),
        /** Hard deadline for the whole call (ms). */
        deadlineMs: z.number().int().min(100).default(4000),
        /** Request body cap (bytes). */
        maxInputBytes: z.number().int().min(512).default(8000),
      })
      .strict()
      .default({}),
    hook: z
      .object({
        /** The hook gives up (silently) past this many ms of its own time. */
        deadlineMs: z.number().int().min(5).default(150),
        /** Printed offer: at most this many bytes. */
        maxBytes: z.number().int().min(80).max(2000).default(400),
        /** Printed offer: at most this many (estimated) tokens. */
        tokenCeiling: z.number().int().min(16).default(90),
        /** A cache written for a transcript this many bytes shorter than now is stale. */
        maxLagBytes: z.number().int().min(0).default(256 * 1024),
        /** The tool channel: a session's tool cache (<home>/cache/<session>.tool.json, the
         *  daemon's decision at a tool step) older than this is not shown. The daemon reads the
         *  transcript within ~1 s of a step and an agent makes its next tool call within seconds
         *  to a minute (long builds and tests), so 120 s keeps a decision for the next few calls
         *  and not for a later, unrelated phase of the session. */
        toolCacheTtlSeconds: z.number().min(1).default(120),
      })
      .strict()
      .default({}),
    soak: z
      .object({
        /** Useful would-fire rate per 100 exchanges: below min is mute, above max is chatty. */
        minWouldFirePer100: z.number().min(0).default(1),
        maxWouldFirePer100: z.number().min(0).default(15),
        /** The tool channel's band, per 100 tool events the hook saw (PostToolUseFailure +
         *  PostToolUse: one per tool call). In the three real sessions of the eval set 4.2 of
         *  every 100 tool calls failed (24/578), so above 4 the channel speaks about as often
         *  as the agent fails — at nearly every failure, more than resolved episodes support;
         *  below 0.2 (one offer in 500 calls, two to three sessions) it is mute. */
        toolMinWouldFirePer100: z.number().min(0).default(0.2),
        toolMaxWouldFirePer100: z.number().min(0).default(4),
        /** Hook latency gates (ms), applied to each channel's runs on its own. */
        hookP50Ms: z.number().min(1).default(40),
        hookP99Ms: z.number().min(1).default(60),
        /** Labels needed and the useful share required for the usefulness gate (per channel:
         *  each channel needs its own labels). */
        minLabels: z.number().int().min(1).default(50),
        minUsefulShare: z.number().min(0).max(1).default(0.7),
      })
      .strict()
      .default({}),
    logs: z
      .object({
        /** Rotate a log file at this size. */
        rotateSize: z.string().default('10M'),
        /** Rotated files kept per log. */
        maxFiles: z.number().int().min(1).default(10),
      })
      .strict()
      .default({}),
    modes: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), ModeSchema).default({ default: {} }),
  })
  .strict();

export type Config = z.infer<typeof ConfigSchema>;

/**
 * A small multi-region knowledge base for the builder tests: notes and past-session
 * transcript chunks across five regions (two of them project-scoped).
 */
import { DAY, T0, type DocSpec } from './helpers.js';

export const PG_ERROR_TURN = {
  user: 'The API keeps failing against postgres with ECONNRESET under load, what is going on with the connection pool?',
  toolErrors: ['Error: read ECONNRESET\n    at TCP.onStreamRead (node:internal/stream_base_commons:217:20)\n    at acquireConnection (/work/app/src/db/pool.ts:41:11)'],
  assistant: 'The postgres connection pool drops idle connections; the server resets them and the pool hands out dead sockets.',
};

export const FIXTURE: DocSpec[] = [
  {
    region: 'past-sessions',
    kind: 'transcripts',
    file: 'proj-a/2026-10-12.jsonl',
    title: 'Session 2026-10-12: postgres pool errors',
    chunks: [
      {
        heading: 'exchange 4',
        text: 'Postgres connection pool failing with ECONNRESET under load. Error: read ECONNRESET at acquireConnection. Fixed by raising the pool idle timeout and enabling keepAlive; the resets stopped.',
        hasError: true,
        resolved: true,
        createdAt: T0,
      },
      { heading: 'exchange 5', text: 'Wrote a migration for the invoices table and added an index on customer id.', createdAt: T0 + 1000 },
    ],
  },
  {
    region: 'pg-notes',
    file: 'pool-timeouts.md',
    title: 'Postgres pool timeouts',
    chunks: [
      { heading: 'Idle connections', text: 'The postgres connection pool drops idle connections after the server idle timeout; ECONNRESET follows. Raise idleTimeoutMillis and enable keepAlive on the pool.' },
      { heading: 'Pool size', text: 'Pool size should match the database max connections divided by the number of app instances.' },
    ],
  },
  {
    region: 'ops',
    file: 'build-cache.md',
    title: 'Build cache hygiene',
    chunks: [{ heading: 'Cleaning', text: 'Never use `rm -rf node_modules/.cache` to clean the build cache while the watcher runs; it corrupts the lockfile. Use npm run clean instead.' }],
  },
  {
    region: 'frontend',
    file: 'react-hooks.md',
    title: 'React hooks pitfalls',
    chunks: [
      { heading: 'Effects', text: 'useEffect with a missing dependency array re-runs on every render; list the dependencies or memoize the callback.' },
      { heading: 'State', text: 'Derived state belongs in useMemo, not in a second useState that must be kept in sync.' },
    ],
  },
  {
    region: 'app',
    scope: 'project:/work/app/**',
    file: 'db.md',
    title: 'App database notes',
    chunks: [{ heading: 'Pool', text: 'The app creates one postgres pool per process in src/db/pool.ts; connections are acquired per request.' }],
  },
  {
    region: 'secret',
    scope: 'project:/work/secret/**',
    file: 'pool.md',
    title: 'Secret project pool notes',
    chunks: [{ heading: 'Pool', text: 'Postgres connection pool ECONNRESET under load: idle connections reset, raise idle timeout, keepAlive on the pool.' }],
  },
  {
    region: 'gardening',
    file: 'tomatoes.md',
    title: 'Tomatoes',
    chunks: [
      { heading: 'Watering', text: 'Water tomatoes deeply twice a week; shallow watering grows weak roots.', createdAt: T0 - 100 * DAY },
      { heading: 'Pruning', text: 'Pinch suckers on indeterminate tomato plants to keep one main stem.', createdAt: T0 - 100 * DAY },
    ],
  },
];

/** Unrelated notes so that the store's similarity scale is that of an ordinary store. */
const FILLER_TOPICS: Array<[string, string[]]> = [
  ['cooking', ['Sear the steak in a hot cast iron pan and rest it five minutes before slicing.', 'Bread dough needs a long cold proof in the fridge for better flavour.', 'Toast whole spices before grinding them for curry.']],
  ['travel', ['Book train tickets across the Alps early; seat reservations sell out in summer.', 'Carry a paper copy of the passport when travelling abroad.', 'Jet lag fades faster with morning daylight and no naps.']],
  ['git', ['Rebase the feature branch onto main before opening the pull request.', 'Use git bisect to find the commit that introduced a regression.', 'Sign commits with an SSH key configured in gpg.format.']],
  ['css', ['Flexbox gap replaces margin hacks between items.', 'Use prefers-reduced-motion to disable animations for users who ask.', 'Container queries size components by their parent, not the viewport.']],
  ['kubernetes', ['A pod stuck in CrashLoopBackOff shows its last logs with kubectl logs --previous.', 'Set resource requests so the scheduler can place pods sensibly.', 'Readiness probes gate traffic; liveness probes restart the container.']],
  ['music', ['Practice scales slowly with a metronome, then raise the tempo.', 'Tune the guitar to a reference pitch before recording.']],
  ['finance', ['Quarterly invoices are due on the fifth working day.', 'Expense reports need receipts scanned as PDF.']],
  ['reading', ['Notes on a history of the printing press and its spread across Europe.', 'A novel about a lighthouse keeper and the sea.']],
  ['fitness', ['Interval runs twice a week build speed; keep the long run slow.', 'Stretch hamstrings after cycling to avoid lower back pain.', 'Deadlift with a neutral spine and the bar close to the shins.']],
  ['python', ['Virtual environments keep project dependencies apart; create one with python -m venv.', 'Type hints plus mypy catch None handling mistakes early.', 'List comprehensions read better than map with lambda.']],
  ['home', ['Bleed the radiators in autumn before turning the heating on.', 'Descale the kettle with citric acid every month in hard water areas.', 'Replace the smoke alarm batteries each spring.']],
  ['photography', ['Shoot in aperture priority for portraits and open the lens wide.', 'The golden hour light is warm and soft just after sunrise.', 'Back up raw files to two drives before editing.']],
  ['rust', ['The borrow checker rejects two mutable references to the same value.', 'Use Result and the question mark operator instead of panicking in libraries.']],
  ['garden-birds', ['Sunflower hearts attract finches to the feeder in winter.', 'Clean bird baths weekly to stop disease spreading.']],
  ['languages', ['Spaced repetition flashcards help vocabulary stick.', 'Listening to podcasts at slower speed helps beginners follow.']],
  ['security', ['Rotate API keys when a laptop is lost and revoke old tokens.', 'Store secrets in the vault, never in the repository.']],
];

export const FILLER: DocSpec[] = FILLER_TOPICS.map(([region, texts]) => ({
  region,
  file: `${region}.md`,
  title: region[0].toUpperCase() + region.slice(1),
  chunks: texts.map((text, i) => ({ heading: `${region} ${i}`, text })),
}));

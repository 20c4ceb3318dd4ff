/**
 * Constructed flow-repair cases for `eval stall` and the trigger tests: a coding session
 * that works normally for a few exchanges, then the human restates the same unmet
 * instruction several times. In the restating version the assistant's replies vary (it
 * keeps trying different things): the flow-repair guard must hold (no stall). In the
 * control version the assistant repeats itself too (same reply, same tool call): a real
 * stall that must still fire. Deterministic text; no data files.
 */

export interface CaseTurn {
  user: string;
  assistant: string;
  toolCalls: string[];
}

export interface FlowRepairCase {
  name: string;
  /** Index of the first restating exchange. */
  repeatFrom: number;
  /** The session's exchanges; `repeatAssistant` builds the control. */
  turns(repeatAssistant: boolean): CaseTurn[];
}

/** Varied, ordinary exchanges before the restating starts (shared by every case). */
const WARMUP: CaseTurn[] = [
  { user: 'set up the project with a package manifest and a test runner', assistant: 'Created package.json with vitest as the test runner and a build script.', toolCalls: ['Write: package.json'] },
  { user: 'the database connection pool keeps timing out under load, look at the pool settings', assistant: 'The pool allows only two connections; raised the limit and added an idle timeout.', toolCalls: ['Edit: src/db/pool.ts'] },
  { user: 'write a unit test for the date parsing helper with leap years', assistant: 'Added tests for February 29 in leap and non-leap years; all pass.', toolCalls: ['Write: test/dates.test.ts', 'Bash: npx vitest run test/dates.test.ts'] },
  { user: 'why does the login page render twice on startup', assistant: 'React strict mode mounts components twice in development; production renders once.', toolCalls: ['Read: src/pages/login.tsx'] },
  { user: 'rename the config loader module and update its imports', assistant: 'Renamed loader.ts to load-config.ts and fixed eleven import paths.', toolCalls: ['Bash: git mv src/loader.ts src/load-config.ts', 'Edit: src/main.ts'] },
  { user: 'add a changelog entry for the release', assistant: 'Added a 1.4.0 section listing the pool fix and the renamed module.', toolCalls: ['Edit: CHANGELOG.md'] },
];

interface Spec {
  name: string;
  instruction: string;
  /** The assistant's varied attempts (each with its own tool call). */
  attempts: [string, string][];
}

const SPECS: Spec[] = [
  {
    name: 'verbose-flag',
    instruction: 'add a --verbose flag to the build script that prints every compiled file',
    attempts: [
      ['I updated the README to document how logging works during builds.', 'Edit: README.md'],
      ['The esbuild options now set logLevel to info, which shows warnings.', 'Edit: esbuild.config.js'],
      ['I added a DEBUG environment variable check in the bundler wrapper.', 'Edit: scripts/bundle.mjs'],
    ],
  },
  {
    name: 'dark-mode',
    instruction: 'make the settings page remember the dark mode choice after a reload',
    attempts: [
      ['I changed the theme colours so dark mode has better contrast.', 'Edit: src/styles/theme.css'],
      ['The toggle component now has an accessible label and keyboard support.', 'Edit: src/components/Toggle.tsx'],
      ['I added a unit test that checks the toggle switches the class name.', 'Write: test/toggle.test.tsx'],
    ],
  },
  {
    name: 'retry-upload',
    instruction: 'retry failed uploads three times with exponential backoff before giving up',
    attempts: [
      ['Upload errors are now logged with the file name and the HTTP status.', 'Edit: src/upload/log.ts'],
      ['I increased the request timeout of the HTTP client to sixty seconds.', 'Edit: src/http/client.ts'],
      ['The progress bar now shows a red state when an upload fails.', 'Edit: src/ui/progress.tsx'],
    ],
  },
  {
    name: 'csv-export',
    instruction: 'export the report table as a CSV file with a header row',
    attempts: [
      ['I added a print stylesheet so the report table fits on one page.', 'Write: src/styles/print.css'],
      ['The table columns are now sortable by clicking the header.', 'Edit: src/report/Table.tsx'],
      ['I cached the report query results for five minutes on the server.', 'Edit: server/report.ts'],
    ],
  },
];

/** How the human restates an instruction that was not met. */
const RESTATE_PREFIXES = ['', 'that is not what I asked: ', 'again, please '];

export function flowRepairCases(): FlowRepairCase[] {
  return SPECS.map((spec) => ({
    name: spec.name,
    repeatFrom: WARMUP.length,
    turns(repeatAssistant: boolean): CaseTurn[] {
      const restating = RESTATE_PREFIXES.map((p, i) => {
        const [text, call] = spec.attempts[repeatAssistant ? 0 : i % spec.attempts.length];
        return { user: p + spec.instruction, assistant: text, toolCalls: [call] };
      });
      return [...WARMUP, ...restating];
    },
  }));
}

/**
 * Error episodes (indexer/episodes.ts) on invented tool steps of the real shapes: a push
 * with no upstream fixed by --set-upstream, a pre-commit format failure fixed by a format
 * command then the commit, an error that changes after an edit, repeated attempts, cascade
 * notices skipped, the look-ahead bound, fix lines with placeholders, and properties: no
 * episode from sidechain records, every episode's sig is errorSignature of its error.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { ToolStep } from '../../transcript/tool-steps.js';
import { stepErrorText, toolStepsOf } from '../../transcript/tool-steps.js';
import { parseLine } from '../../transcript/records.js';
import { errorSignature } from '../../shared/error-signature.js';
import { commandKey, episodesOf, isInspection, LOOKAHEAD_STEPS, similarAction } from '../../indexer/episodes.js';
import { fixCommandText } from '../../indexer/fix-text.js';

const CWD = '/home/user/work/shop-wt/feature-cart';
let n = 0;
function step(summary: string, result = 'ok', isError = false, note = '', cwd = CWD, callCwd: string | null = cwd): ToolStep {
  n++;
  const name = summary.split(':', 1)[0];
  return {
    step: n, toolUseId: `t${n}`, name, summary, isError, toolUseError: false, resultText: result, callAt: 1_700_000_000_000 + n * 1000,
    resultAt: 1_700_000_000_000 + n * 1000 + 500, startOffset: n * 100, endOffset: n * 100 + 99, sessionId: 'sess-a', cwd, callCwd, note,
  };
}
const NO_UPSTREAM = 'Exit code 128\nfatal: The current branch feature-cart has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature-cart\n';
const FORMAT_FAIL = 'Pre-commit checks failed:\\n\\n[FORMAT] Files are not formatted.\\nRun \'mix format\' to fix.\\n';
const LINT_FAIL = 'Pre-commit checks failed:\\n\\n[LINT]\\nFound 2 warnings in lib/cart.ex\\n';

describe('episodes', () => {
  it('a push with no upstream, fixed by --set-upstream: resolved, the fix names the command with the branch as a placeholder', () => {
    const eps = episodesOf([
      step('Bash: git push 2>&1', NO_UPSTREAM, true, 'All checks pass, pushing.'),
      step('Bash: git push --set-upstream origin feature-cart 2>&1', 'branch set up to track origin/feature-cart', false, 'All checks pass, pushing.'),
      step('Bash: git status'),
    ]);
    expect(eps).toHaveLength(1);
    expect(eps[0]).toMatchObject({ tool: 'Bash', action: 'Bash: git push 2>&1', outcome: 'succeeded', resolved: true, attempts: 1, fix: 'git push --set-upstream origin <branch>', note: '' });
    expect(eps[0].sig.sig).toBe(errorSignature(NO_UPSTREAM)!.sig);
    expect(eps[0].errorLines[0]).toContain('has no upstream branch');
  });

  it('a success whose acting part lies past the summary cut still ends the episode (the whole command is read); control: without it, unresolved', () => {
    // One added action (a fix is a small change: rule small-change), with the commit past the cut.
    const copy = `cp "/home/user/work/docs/stories/story-us-001-define-the-hard-caps-for-every-tenant-and-plan-in-the-billing-service.txt" /home/user/work/app/docs/stories/`;
    const whole = `${copy} && git add docs/stories && git commit -m "docs: story"`;
    const cut = (cmd: string) => `Bash: ${cmd}`.slice(0, 160);
    const failing = () => step('Bash: cd /home/user/work && git add docs/stories/story.txt && git commit -m "docs"', 'Exit code 128\nfatal: not a git repository (or any of the parent directories): .git', true, '', '/home/user/work/app');
    const withCommand = { ...step(cut(whole), '[main e685724] docs: story', false, '', '/home/user/work/app'), command: whole };
    const resolved = episodesOf([failing(), withCommand]);
    expect(resolved[0]).toMatchObject({ outcome: 'succeeded', resolved: true });
    // Paths in a fix are absolute (a relative one only worked from that session's cwd).
    expect(resolved[0].fix).toMatch(/^in \/home\/user\/work\/app: cp \/home\/user\/work\/docs\/stories\//);
    expect(cut(whole)).not.toContain('git add');
    const control = episodesOf([failing(), step(cut(whole), '[main e685724] docs: story', false, '', '/home/user/work/app')]);
    expect(control[0], JSON.stringify(control[0])).toMatchObject({ outcome: 'unresolved', fix: '' });
  });

  it('a failure that cd-ed away from where the work is: the success where it is says where (absolute); when it then failed otherwise it is no fix (rule intent-succeeded); control: no move, no place', () => {
    const NOT_REPO = 'Exit code 128\nfatal: not a git repository (or any of the parent directories): .git';
    const app = '/home/user/work/app';
    const ok = episodesOf([step('Bash: cd /home/user/work && git add -A && git status', NOT_REPO, true, '', app), step('Bash: git add -A && git status', 'On branch main', false, '', app)]);
    expect(ok[0]).toMatchObject({ outcome: 'succeeded', fix: 'in /home/user/work/app: git add -A && git status' });
    const changed = episodesOf([
      step('Bash: cd /home/user/work && git add -A && git commit -m "x"', NOT_REPO, true, '', app),
      step('Bash: jq ".passes = true" prd.json > /tmp/p.json && mv /tmp/p.json prd.json', '', false, '', app),
      step('Bash: git add -A && git commit -m "x"', 'Exit code 1\nnothing to commit, working tree clean', true, '', app),
    ]);
    // The error only changed into another (`nothing to commit`): the intent has not got through.
    expect(changed[0]).toMatchObject({ outcome: 'unresolved', resolved: false, fix: '' });
    const stayed = episodesOf([step('Bash: git add -A && git status', NOT_REPO, true, '', app), step('Bash: git init', 'Initialized', false, '', app), step('Bash: git add -A && git status', 'On branch main', false, '', app)]);
    // `git init` where the repository was missing creates state: never a fix (rule no-state-change).
    expect(stayed[0]).toMatchObject({ outcome: 'unresolved', fix: '' });
  });

  it('another program of the same name standing in that then fails otherwise is no fix (rule intent-succeeded); controls: the stand-in succeeding is, the same program rerun is not', () => {
    const NOT_FOUND = '/bin/bash: line 1: python: command not found';
    const standIn = episodesOf([step('Bash: python deploy.py', NOT_FOUND, true), step('Bash: python3 deploy.py', "python3: can't open file '/home/user/deploy.py': [Errno 2] No such file or directory", true)]);
    expect(standIn[0]).toMatchObject({ outcome: 'unresolved', resolved: false, fix: '' });
    const succeeded = episodesOf([step('Bash: python deploy.py', NOT_FOUND, true), step('Bash: python3 deploy.py', 'deployed')]);
    expect(succeeded[0]).toMatchObject({ outcome: 'succeeded', resolved: true, fix: 'python3 deploy.py' });
    const rerun = episodesOf([step('Bash: python deploy.py', NOT_FOUND, true), step('Bash: python deploy.py --verbose', 'Traceback (most recent call last):\nModuleNotFoundError: No module named requests', true)]);
    expect(rerun[0]).toMatchObject({ outcome: 'unresolved', fix: '' });
  });

  it('a folder spelled otherwise (`~`, MSYS) is no move: the config edit between stays the fix; a rerun that only adds `cd <the same folder>` changed nothing', () => {
    const app = '/home/me/app';
    const tilde = episodesOf([step('Bash: cd ~/app && npm test', 'Error: Cannot find module ./config', true, '', app), step('Edit: /home/me/app/package.json', 'ok', false, '', app), step('Bash: npm test', 'Tests: 3 passed', false, '', app)]);
    expect(tilde[0]).toMatchObject({ outcome: 'succeeded', fix: 'Edit /home/me/app/package.json; then npm test' });
    expect(tilde[0].fix).not.toMatch(/\bin \/home\/me\/app:/);
    const same = episodesOf([step('Bash: npx tsc --noEmit', "src/a.ts(3,1): error TS2304: Cannot find name 'foo'.", true, '', app), step('Edit: /home/me/app/tsconfig.json', 'ok', false, '', app), step('Bash: cd /home/me/app && npx tsc --noEmit', '', false, '', app)]);
    expect(same[0]).toMatchObject({ outcome: 'succeeded', fix: 'Edit /home/me/app/tsconfig.json; then npx tsc succeeded' });
  });

  it('a pre-commit format failure: the format command is the fix, then the commit succeeded; the note explains it', () => {
    const eps = episodesOf([
      step('Bash: git add -A && git commit -m "feat: cart totals with tax and rounding per line item"', FORMAT_FAIL, true, 'Committing.'),
      step('Bash: mix format 2>&1', '', false, 'The hook wants formatted code; formatting first.'),
      step('Bash: git status --short'),
      step('Bash: git add -A && git commit -m "feat: cart totals with tax and rounding per line item"', '[feature-cart 1a2b3c4] feat'),
    ]);
    expect(eps).toHaveLength(1);
    expect(eps[0]).toMatchObject({ outcome: 'succeeded', fix: 'mix format; then git commit succeeded', note: 'The hook wants formatted code; formatting first.' });
    expect(eps[0].tried).toEqual(['Bash: mix format 2>&1', 'Bash: git status --short']);
  });

  it('the same action failing with another error after a change: not resolved (rule intent-succeeded), the next is its own episode; a code edit is no fix of it (rule small-change), a command is', () => {
    const commit = 'Bash: git commit -m "$(cat <<\'EOF\' feat: cart totals EOF )"';
    const eps = episodesOf([
      step(commit, FORMAT_FAIL, true),
      step('Bash: mix format'),
      step(commit, LINT_FAIL, true),
      step(`Edit: ${CWD}/lib/cart.ex`, 'ok', false, 'Removing the unused alias the linter flagged.'),
      step(commit, 'ok'),
    ]);
    expect(eps.map((e) => [e.outcome, e.fix])).toEqual([
      ['unresolved', ''],
      ['unresolved', ''],
    ]);
    expect(eps.map((e) => e.errorText)).toEqual([FORMAT_FAIL, LINT_FAIL]);
    // Control: the second error fixed by one command (no code edited): its own episode, resolved.
    const byCommand = episodesOf([
      step(commit, FORMAT_FAIL, true),
      step('Bash: mix format'),
      step(commit, LINT_FAIL, true),
      step('Bash: mix deps.unlock --unused', 'ok', false, 'Removing the unused dependency the linter flagged.'),
      step(commit, 'ok'),
    ]);
    expect(byCommand.map((e) => [e.outcome, e.fix])).toEqual([
      ['unresolved', ''],
      ['succeeded', 'mix deps.unlock --unused; then git commit succeeded'],
    ]);
    expect(byCommand[1].note).toBe('Removing the unused dependency the linter flagged.');
    // Control: a different error on a retry with no change in between does not end the episode.
    const flaky = episodesOf([step(commit, FORMAT_FAIL, true), step(commit, LINT_FAIL, true), step('Bash: ls')]);
    expect(flaky[0].outcome).toBe('unresolved');
  });

  it('repeated failures with the same signature form one episode (first failure, attempts counted; the fix is what came after the last one)', () => {
    const t1 = 'Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect';
    const t2 = 'Error: connect ECONNREFUSED 127.0.0.1:5433\n    at TCPConnectWrap.afterConnect';
    const eps = episodesOf([
      step('Bash: npm run test:integration', t1, true),
      step('Bash: sleep 5'),
      step('Bash: npm run test:integration', t2, true),
      step('Bash: docker compose up -d postgres', 'Started', false, 'Postgres is not running; starting it.'),
      step('Bash: npm run test:integration', 'Tests: 42 passed'),
    ]);
    expect(eps).toHaveLength(1);
    expect(eps[0]).toMatchObject({ step: eps[0].step, attempts: 2, outcome: 'succeeded', fix: 'docker compose up -d postgres; then npm run test:integration succeeded', note: 'Postgres is not running; starting it.' });
  });

  it('cascade notices (sibling failed, user rejected, interrupted) are not episodes and do not end one', () => {
    const eps = episodesOf([
      step('Bash: make deploy', 'Sibling tool call errored', true),
      step('Edit: /home/user/x.ts', "The user doesn't want to proceed with this tool use. The tool use was rejected.", true),
      step('Bash: npm publish', '[Request interrupted by user for tool use]', true),
    ]);
    expect(eps).toEqual([]);
    // Control: a real error among them is an episode; the cascade retry does not resolve it.
    const real = episodesOf([step('Bash: make deploy', 'make: *** [deploy] Error 1\nerror: missing DEPLOY_TOKEN', true), step('Bash: make deploy', 'Sibling tool call errored', true)]);
    expect(real).toHaveLength(1);
    expect(real[0].outcome).toBe('unresolved');
    expect(episodesOf([{ ...step('x', 'Error: from a call never seen', true), name: 'unknown', summary: 'unknown' }])).toEqual([]);
  });

  it('the look-ahead is bounded: a success of the same action beyond it does not resolve the episode', () => {
    const fail = step('Bash: cargo build', 'error[E0432]: unresolved import `crate::cart`', true);
    const edit = step(`Edit: ${CWD}/Cargo.toml`);
    const filler = Array.from({ length: LOOKAHEAD_STEPS - 1 }, (_, i) => step(`Read: /home/user/f${i}.rs`));
    expect(episodesOf([fail, edit, ...filler, step('Bash: cargo build', 'Finished')])[0].outcome).toBe('unresolved');
    // Control: one step fewer of filler and the same success resolves it.
    expect(episodesOf([fail, edit, ...filler.slice(1), step('Bash: cargo build', 'Finished')])[0]).toMatchObject({ outcome: 'succeeded', fix: `Edit ${CWD}/Cargo.toml; then cargo build succeeded` });
  });

  it('an unchanged rerun is not a fix: only reads and checks between, the same command in the same place (control: a change in between is)', () => {
    const err = 'Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:5432';
    const retried = episodesOf([step('Bash: npm run migrate', err, true), step('Bash: git status'), step(`Read: ${CWD}/db.js`), step('Bash: npm run migrate')]);
    expect(retried[0]).toMatchObject({ outcome: 'unresolved', resolved: false, fix: '' });
    const fixed = episodesOf([step('Bash: npm run migrate', err, true), step('Bash: docker compose up -d db'), step('Bash: npm run migrate')]);
    expect(fixed[0]).toMatchObject({ outcome: 'succeeded', fix: 'docker compose up -d db; then npm run migrate succeeded' });
  });

  it('hiding the error is not a fix (`2>/dev/null`, `|| true`, `|| echo`), neither as the success nor as the change', () => {
    const err = 'Exit code 1\n/bin/bash: line 1: .claude/lib/lock.sh: No such file or directory';
    const hidden = episodesOf([step('Bash: source .claude/lib/lock.sh && take_lock', err, true), step('Bash: source .claude/lib/lock.sh 2>/dev/null || true; take_lock')]);
    expect(hidden[0]).toMatchObject({ resolved: false, fix: '' });
    // Control: the same success with the real path is a fix.
    const real = episodesOf([step('Bash: source .claude/lib/lock.sh && take_lock', err, true), step('Bash: source /home/user/.claude/lib/lock.sh && take_lock')]);
    expect(real[0]).toMatchObject({ resolved: true, fix: 'source /home/user/.claude/lib/lock.sh && take_lock' });
    // Stderr already sent away in the failing call: a fallback added to "succeed" still hides it.
    const git = 'Exit code 128\nfatal: not a git repository (or any of the parent directories): .git';
    const fallback = episodesOf([step('Bash: git diff --name-only HEAD~1 2>/dev/null || git ls-files --others', git, true), step('Bash: git diff --stat HEAD~1 2>/dev/null || echo "no git history"')]);
    expect(fallback[0]).toMatchObject({ resolved: false, fix: '' });
    // Control: the same failing call, then run where the repository is: a fix.
    const moved = episodesOf([step('Bash: git diff --name-only HEAD~1 2>/dev/null || git ls-files --others', git, true), step('Bash: cd api && git diff --name-only HEAD~1 2>/dev/null || git ls-files --others')]);
    expect(moved[0]).toMatchObject({ resolved: true });
  });

  it('a probe that hid its own failure (`ls x 2>/dev/null || echo …`) does not end the episode: the later real success in another folder is the fix (control: without it, unresolved)', () => {
    const home = '/home/user';
    const err = "Exit code 2\nls: cannot access 'docs/': No such file or directory";
    const probe = () => step('Bash: pwd && ls -la database/ 2>/dev/null || echo "not found"', `${home}/db\nnot found`, false, '', `${home}/db`, `${home}/db`);
    const found = episodesOf([
      step('Bash: ls -la docs/', err, true, '', `${home}/db`, `${home}/db`),
      probe(),
      step('Bash: ls -la docs/ | grep -i audit', 'prd-audit.json', false, '', home, home),
    ]);
    expect(found[0]).toMatchObject({ outcome: 'succeeded', resolved: true, fix: `in ${home}: ls -la docs/ | grep -i audit` });
    const probedOnly = episodesOf([step('Bash: ls -la docs/', err, true, '', `${home}/db`, `${home}/db`), probe(), step('Bash: git status', 'On branch main', false, '', `${home}/db`, `${home}/db`)]);
    expect(probedOnly[0]).toMatchObject({ outcome: 'unresolved', resolved: false, fix: '' });
  });

  it('where it ran is the fix: the same command succeeding after the shell moved is "in <dir>: …"; paths are shown absolute', () => {
    const home = '/home/user';
    const err = 'Exit code 128\nfatal: not a git repository (or any of the parent directories): .git';
    const moved = episodesOf([
      step('Bash: git add -A && git status', err, true, '', home, home),
      step(`Bash: cd ${home}/api`, '', false, '', `${home}/api`, home),
      step('Bash: git add -A && git status', 'On branch main', false, '', `${home}/api`, `${home}/api`),
    ]);
    expect(moved[0]).toMatchObject({ resolved: true, fix: `in ${home}/api: git add -A && git status`, cwd: home });
    const cdInCommand = episodesOf([step('Bash: git log --oneline -3', err, true, '', home, home), step(`Bash: cd ${home}/api && git log --oneline -3`, 'abc', false, '', `${home}/api`, home)]);
    expect(cdInCommand[0].fix).toBe(`cd ${home}/api && git log --oneline -3`);
    // Control: the same rerun in the same place fixes nothing.
    expect(episodesOf([step('Bash: git status', err, true, '', home, home), step('Bash: git status', 'ok', false, '', home, home)])[0].resolved).toBe(false);
  });

  it('another command or tool that carries out the same intent resolves it (dir in Git Bash → Glob; grep → the Grep tool); control: an unrelated success does not', () => {
    const dirErr = "Exit code 2\ndir: cannot access '/b': No such file or directory";
    const eps = episodesOf([step('Bash: dir /b /s "C:\\app\\backend\\*.py"', dirErr, true), step('Glob: backend/**/*.py')]);
    expect(eps[0]).toMatchObject({ resolved: true, fix: 'Glob: backend/**/*.py' });
    const grep = episodesOf([step('Bash: grep -n "a\\|b" src/x.ts', 'Error', true), step('Grep: a|b')]);
    expect(grep[0].resolved).toBe(true);
    expect(episodesOf([step('Bash: dir /b', dirErr, true), step('Bash: npm test')])[0].resolved).toBe(false);
  });

  it('a command not found is resolved by the program of the same name that exists (python → python3), with the rest of the command kept', () => {
    const err = 'Exit code 127\n/bin/bash: line 1: python: command not found';
    const eps = episodesOf([step('Bash: python -c "import x"', err, true), step('Bash: python3 -c "import x"')]);
    expect(eps[0]).toMatchObject({ resolved: true, fix: 'python3 -c "import x"' });
    expect(similarAction(step('Bash: pip install x'), step('Bash: pip3 install x'))).toBe(true);
    expect(similarAction(step('Bash: npm install'), step('Bash: pnpm install'))).toBe(false);
  });

  it('an edit retried after only reading the file is not a fix (reading is a diagnostic; control: a command in between is; removing the lock is no fix, rule no-state-change)', () => {
    const eps = episodesOf([
      step(`Edit: ${CWD}/lib/cart.ex`, 'Error: Cannot edit lib/cart.ex while it is locked by another process', true),
      step(`Read: ${CWD}/lib/cart.ex`, '...'),
      step(`Edit: ${CWD}/lib/cart.ex`, 'ok'),
    ]);
    expect(eps[0]).toMatchObject({ outcome: 'unresolved', fix: '' });
    const changed = episodesOf([
      step(`Edit: ${CWD}/lib/cart.ex`, 'Error: Cannot edit lib/cart.ex while it is locked by another process', true),
      step('Bash: chmod u+w lib/cart.ex'),
      step(`Edit: ${CWD}/lib/cart.ex`, 'ok'),
    ]);
    expect(changed[0]).toMatchObject({ outcome: 'succeeded', fix: `chmod u+w lib/cart.ex; then Edit ${CWD}/lib/cart.ex succeeded` });
    const removed = episodesOf([
      step(`Edit: ${CWD}/lib/cart.ex`, 'Error: Cannot edit lib/cart.ex while it is locked by another process', true),
      step('Bash: rm -f lib/.cart.ex.lock'),
      step(`Edit: ${CWD}/lib/cart.ex`, 'ok'),
    ]);
    expect(removed[0]).toMatchObject({ outcome: 'unresolved', fix: '' });
  });

  it('similar action and inspection rules', () => {
    expect(commandKey('git push --set-upstream origin x 2>&1')).toBe('git push');
    expect(commandKey('cd /home/user/app && FOO=1 timeout 60 mix test test/a_test.exs')).toBe('mix test');
    expect(commandKey('npm run build -- --watch')).toBe('npm run build');
    expect(commandKey('python3 -m pytest tests/')).toBe('python3 -m pytest');
    expect(commandKey('git add -A && git commit -m "x"')).toBe('git commit');
    // A file name is an operand like a path (`mv tmp.json x` and `mv /tmp/p.json y` do one
    // thing) — after an interpreter it names the action (control).
    expect(commandKey('jq . a.json > tmp.json && mv tmp.json docs/a.json')).toBe('mv');
    expect(commandKey('mv /tmp/p.json /home/u/docs/a.json')).toBe('mv');
    expect(commandKey('python train.py --epochs 3')).toBe('python train.py');
    expect(commandKey('node scripts/build.mjs')).toBe('node');
    expect(commandKey('node build.mjs')).toBe('node build.mjs');
    expect(similarAction({ name: 'Bash', summary: 'Bash: npm run build' }, { name: 'Bash', summary: 'Bash: npm run test' })).toBe(false);
    expect(similarAction({ name: 'Edit', summary: 'Edit: /a/b.ts' }, { name: 'Write', summary: 'Write: /a/b.ts' })).toBe(true);
    expect(similarAction({ name: 'Edit', summary: 'Edit: /a/b.ts' }, { name: 'Edit', summary: 'Edit: /a/c.ts' })).toBe(false);
    expect(similarAction({ name: 'WebFetch', summary: 'WebFetch: https://example.org/docs/api' }, { name: 'WebFetch', summary: 'WebFetch: https://example.org/docs/api' })).toBe(true);
    expect(isInspection({ name: 'Bash', summary: 'Bash: git status && git log --oneline -3' })).toBe(true);
    expect(isInspection({ name: 'Bash', summary: 'Bash: mix dialyzer 2>&1 | grep cart' })).toBe(true);
    expect(isInspection({ name: 'Bash', summary: 'Bash: mix deps.get 2>&1 | tail -5' })).toBe(false);
    expect(isInspection({ name: 'Grep', summary: 'Grep: total in lib' })).toBe(true);
  });

  it('fix text: temp paths, hashes, ids, messages and branches become placeholders; session paths stay absolute; command words stay', () => {
    expect(fixCommandText('git push --set-upstream origin feature-cart 2>&1', CWD)).toBe('git push --set-upstream origin <branch>');
    expect(fixCommandText(`cd ${CWD}/assets && npm ci 2>&1 | tail -20`, CWD)).toBe(`cd ${CWD}/assets && npm ci`);
    expect(fixCommandText('cat /tmp/run-1234/out.log', CWD)).toBe('cat <path>');
    expect(fixCommandText('git revert 3f9a2c1d7e --no-edit', CWD)).toBe('git revert <hash> --no-edit');
    expect(fixCommandText('git commit -m "fix: round each line item before summing the cart"', CWD)).toBe('git commit -m <text>');
    expect(fixCommandText('git commit -m "$(cat <<\'EOF\' long message here EOF )"', CWD)).toBe('git commit -m <message>');
    expect(fixCommandText('git checkout -b feature/tax-rounding', CWD)).toBe('git checkout -b <branch>');
    expect(fixCommandText('kubectl delete pod 0b5f2e1c-1111-4a2b-9c3d-222233334444', CWD)).toBe('kubectl delete pod <id>');
    expect(fixCommandText('grep -n "total" lib/cart.ex', CWD)).toBe('grep -n "total" lib/cart.ex');
    expect(fixCommandText('curl -fsS https://registry.example.org/v2/index.json', CWD)).toBe('curl -fsS https://registry.example.org/v2/index.json');
    expect(fixCommandText('git reset --hard HEAD~1', CWD)).toBe('git reset --hard HEAD~1');
    // A quoted path stays a path, however long (where the file is is what changed); a quoted
    // message does not (control).
    expect(fixCommandText('cat "/home/user/docs/prd-abuse-controls.json" | jq .', CWD)).toBe('cat /home/user/docs/prd-abuse-controls.json | jq .');
    expect(fixCommandText(`cat "${CWD}/docs/prd-abuse-controls.json"`, CWD)).toBe(`cat ${CWD}/docs/prd-abuse-controls.json`);
    expect(fixCommandText('cat "docs/prd-abuse-controls.json"', CWD)).not.toBe(fixCommandText('cat "/home/user/docs/prd-abuse-controls.json"', CWD));
    expect(fixCommandText('echo "see docs/prd-abuse-controls.json for the list"', CWD)).toBe('echo <text>');
  });

  it('a file read from where it is, after the same update failed on a relative path, is resolved: the path is the fix (control: an unchanged rerun is not)', () => {
    const MISSING = "Exit code 1\ncat: docs/prd-audit.json: No such file or directory\nmv: cannot move 'tmp.json' to 'docs/prd-audit.json': No such file or directory";
    const update = (p: string, tmp: string) => `Bash: cat "${p}" | jq "(.stories[0].passes) = true" > ${tmp} && mv ${tmp} "${p}"`;
    const eps = episodesOf([
      step(update('docs/prd-audit.json', 'tmp.json'), MISSING, true),
      step('Bash: find /home/user -name "prd-audit.json"', '/home/user/docs/prd-audit.json'),
      step(update('/home/user/docs/prd-audit.json', '/tmp/prd.json'), ''),
    ]);
    expect(eps[0]).toMatchObject({ outcome: 'succeeded' });
    expect(eps[0].fix).toContain('cat /home/user/docs/prd-audit.json');
    const rerun = episodesOf([
      step(update('docs/prd-audit.json', 'tmp.json'), MISSING, true),
      step('Bash: find /home/user -name "prd-audit.json"', '/home/user/docs/prd-audit.json'),
      step(update('docs/prd-audit.json', 'tmp.json'), ''),
    ]);
    expect(rerun[0]).toMatchObject({ outcome: 'unresolved', fix: '' });
  });

  it('a path naming the folder the call ran in signs as that slip: its fix answers the slip met again, not a missing path elsewhere (control)', () => {
    const HERE = "Exit code 128\nfatal: pathspec 'feature-cart/lib' did not match any files";
    const eps = episodesOf([
      step('Bash: git add feature-cart/lib', HERE, true),
      step('Bash: git add lib', 'ok'),
      step('Bash: git add docs/story.txt', "Exit code 128\nfatal: pathspec 'docs/story.txt' did not match any files", true),
      step('Bash: git add -A', 'ok'),
    ]);
    expect(eps).toHaveLength(2);
    expect(eps[0]).toMatchObject({ outcome: 'succeeded', fix: 'git add lib' });
    expect(eps[0].sig.head[0]).toBe('fatal: pathspec <here> did not match any files');
    expect(eps[1].sig.head[0]).toBe('fatal: pathspec <q> did not match any files');
    expect(eps[0].sig.sig).not.toBe(eps[1].sig.sig);
  });

  it('a guessed absolute path is stored with no fix (its fix is finding the file); control: the same words about a relative path keep theirs', () => {
    const eps = episodesOf([
      step('Bash: ls -la /home/user/work/shop/src/app/api/orders/', "Exit code 2\nls: cannot access '/home/user/work/shop/src/app/api/orders/': No such file or directory", true),
      step('Bash: ls -la /home/user/work/shop-wt/feature-cart/src/app/api/orders/', 'route.ts'),
      step('Bash: ls -la docs/prd.json', "Exit code 2\nls: cannot access 'docs/prd.json': No such file or directory", true),
      step('Bash: ls -la ../docs/prd.json', 'prd.json'),
    ]);
    expect(eps.map((e) => [e.outcome, e.fix])).toEqual([['unresolved', ''], ['succeeded', 'ls -la ../docs/prd.json']]);
    expect(eps[0].sig.sig).toBe(eps[1].sig.sig); // the same words: only the whole text tells them apart
  });

  it('property: every episode has the signature of its own error text, never comes from a cascade, and steps stay in order', () => {
    const errors = [NO_UPSTREAM, FORMAT_FAIL, LINT_FAIL, 'Error: ENOENT: no such file or directory, open \'/x/y\'', 'Sibling tool call errored', "fatal: pathspec 'feature-cart/lib' did not match any files", 'ok'];
    const actions = ['Bash: git push', 'Bash: mix format', 'Bash: git commit -m x', `Edit: ${CWD}/a.ex`, 'Read: /tmp/a', 'Grep: x in y'];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(actions.length - 1), fc.nat(errors.length - 1), fc.boolean()), { maxLength: 60 }), (plan) => {
        const steps = plan.map(([a, e, fail]) => step(actions[a], errors[e], fail && errors[e] !== 'ok'));
        const eps = episodesOf(steps);
        for (const ep of eps) {
          // Its own error text as the hook signs it: the folder it ran in marked (shared/here-mark.ts).
          expect(errorSignature(stepErrorText(steps.find((s) => s.step === ep.step)!))!.sig).toBe(ep.sig.sig);
          expect(ep.errorText).not.toMatch(/^Sibling tool call errored/);
          expect(ep.resolved).toBe(ep.outcome !== 'unresolved');
          expect(ep.fix === '').toBe(!ep.resolved);
          expect(ep.attempts).toBeGreaterThanOrEqual(1);
        }
        expect(eps.map((e) => e.step)).toEqual([...eps.map((e) => e.step)].sort((a, b) => a - b));
      }),
    );
  });

  it('property: episodes never come from sidechain records (control: the same failures on the main lane do)', () => {
    const line = (type: string, side: boolean, message: unknown) => JSON.stringify({ type, isSidechain: side, sessionId: 's', cwd: CWD, timestamp: '2026-03-02T09:00:00Z', uuid: `u${Math.random()}`, message });
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 20 }), (sides) => {
        const lines = sides.flatMap((side, i) => [
          line('assistant', side, { role: 'assistant', content: [{ type: 'tool_use', id: `x${i}`, name: 'Bash', input: { command: `deploy ${i}` } }] }),
          line('user', side, { role: 'user', content: [{ type: 'tool_result', tool_use_id: `x${i}`, content: `Error: deploy ${i} failed: token expired`, is_error: true }] }),
        ]);
        let off = 0;
        const steps = toolStepsOf(lines.map((l) => ({ rec: parseLine(l), startOffset: off, endOffset: (off += l.length + 1) })));
        const eps = episodesOf(steps);
        const mainActions = sides.map((s, i) => (s ? null : `Bash: deploy ${i}`)).filter(Boolean);
        for (const ep of eps) expect(mainActions).toContain(ep.action);
        if (mainActions.length) expect(eps.length).toBeGreaterThan(0);
        else expect(eps).toEqual([]);
      }),
    );
  });
});

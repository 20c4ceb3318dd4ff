/**
 * Rule task-files (shared/task-files.ts): which files a Past fix names that belong to the task
 * it was met in. Examples from real fix lines with their controls (what transfers stays out of
 * the list), and properties: never throws; the names are last segments of words of the fix.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fixTaskFiles, pathArguments } from '../../shared/task-files.js';
import { MAX_EDIT_NAMES } from '../../shared/fix-place.js';

describe('fixTaskFiles (rule task-files)', () => {
  it('a fix that kept the task\'s own file after dropping the missing one names it; so does a listing of that task\'s folder', () => {
    expect(fixTaskFiles('git add docs/prd-api.json', 'Bash: git add docs/prd-api.json docs/api/story-us-006.txt 2>&1')).toEqual(['prd-api.json']);
    expect(fixTaskFiles('ls -la /home/u/portal/src/features/auth-users/components/', 'Glob: **/portal/**/UserDetail*.tsx')).toEqual(['components']);
    expect(fixTaskFiles('Edit src/lib/wallet.ts; then npm run build succeeded', 'Bash: npm run build')).toEqual(['wallet.ts']);
  });

  it('control: what transfers names no task file — a move, a corrected path of the failing call\'s file, a manifest, another tool\'s scope, a flag', () => {
    expect(fixTaskFiles('cd /home/u/portal && pnpm run typecheck', 'Bash: pnpm run typecheck')).toBeNull();
    expect(fixTaskFiles('in /home/u/api: git add docs/prd-api.json && git status', 'Bash: cd /home/u && git add -A')).toBeNull();
    expect(fixTaskFiles('cat /home/u/docs/prd-abuse.json', 'Bash: cat "docs/prd-abuse.json"')).toBeNull();
    expect(fixTaskFiles('git add src/lib/jobs/worker.ts', 'Bash: git add api/src/lib/jobs/worker.ts')).toBeNull();
    expect(fixTaskFiles('Edit /home/u/app/package.json; then npm install --legacy-peer-deps', 'Bash: npm install')).toBeNull();
    expect(fixTaskFiles('python3 -m pip install -r requirements.txt', 'Bash: python app.py')).toBeNull();
    expect(fixTaskFiles('Glob: backend/*.py', 'Bash: dir /b /s backend')).toBeNull();
    expect(fixTaskFiles('Grep: publishEvent in /home/u/app/src', 'Bash: rg publishEvent')).toBeNull();
    expect(fixTaskFiles('git push --set-upstream origin <branch>', 'Bash: git push')).toBeNull();
    expect(fixTaskFiles('git rebase origin/main', 'Bash: git pull')).toBeNull();
    // An install's arguments are packages, even when they look like file names.
    expect(fixTaskFiles('npm install decimal.js', 'Bash: npm test')).toBeNull();
    expect(fixTaskFiles('python3 -m pip install ruamel.yaml', 'Bash: python3 app.py')).toBeNull();
    expect(fixTaskFiles('sudo apt-get install -y libssl.dev', 'Bash: make')).toBeNull();
    // Setting the environment up transfers: a virtualenv, its activation, an executable bit.
    expect(fixTaskFiles('source .venv/bin/activate && pytest', 'Bash: pytest')).toBeNull();
    expect(fixTaskFiles('python3 -m venv .venv; then pip install requests', 'Bash: python3 app.py')).toBeNull();
    expect(fixTaskFiles('chmod +x scripts/deploy.sh', 'Bash: scripts/deploy.sh')).toBeNull();
  });

  it('pathArguments: an install names packages, not files (control: the same name read as a file is a path)', () => {
    expect(pathArguments('npm install decimal.js chart.js')).toEqual([]);
    expect(pathArguments('yarn add socket.io')).toEqual([]);
    expect(pathArguments('cat decimal.js')).toEqual(['decimal.js']);
    expect(pathArguments('npm run build -- --config vite.config.ts')).toEqual(['vite.config.ts']);
  });

  it('pathArguments: paths, not programs, options, placeholders or cd targets', () => {
    expect(pathArguments('cd /a/b && git add docs/x.json -f && ./bin/run <path> --out=dist/x.js | tee log.txt')).toEqual(['docs/x.json', 'log.txt']);
  });

  it('property: never throws; every name is the last segment of a word of the fix; at most MAX_EDIT_NAMES', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), (fix, failing) => {
      const names = fixTaskFiles(fix, failing);
      if (names === null) return;
      expect(names.length).toBeGreaterThan(0);
      expect(names.length).toBeLessThanOrEqual(MAX_EDIT_NAMES);
      for (const n of names) expect(fix).toContain(n);
    }));
  });
});

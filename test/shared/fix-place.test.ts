/**
 * shared/fix-place.ts: where a fix ran, and whether the session at hand works there. Examples
 * in the shapes real fixes take (`in X:`, `cd X &&`, `git -C X`, absolute, relative, Windows),
 * and properties: any input never throws; a place in the cwd, or a path through it in the
 * transcript, always counts; a place named nowhere never does.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { currentPlace, editsNamed, fixDirectory, fixEdits, fixPlace, fixStaged, placeInContext, ranBeside } from '../../shared/fix-place.js';

describe('fix place', () => {
  it('the directory a fix moved to, and its last segment', () => {
    expect(fixDirectory('in api-gateway: git add -A')).toBe('api-gateway');
    expect(fixDirectory('cd /home/ken/developer-portal && pnpm run typecheck')).toBe('/home/ken/developer-portal');
    expect(fixDirectory('git -C services/api status')).toBe('services/api');
    expect(fixDirectory('git push --set-upstream origin <branch>')).toBeNull();
    expect(fixPlace('cd /home/ken/developer-portal/ && pnpm run typecheck')).toBe('developer-portal');
    expect(fixPlace('in C:\\Users\\a\\proj: npm test')).toBe('proj');
    expect(fixPlace('cd "my app" && npm test')).toBe('my app');
    expect(fixPlace('cd .. && git status')).toBeNull();
    expect(fixPlace('cd ~ && ls')).toBeNull();
    expect(fixPlace('cd $PROJECT && ls')).toBeNull();
    expect(fixPlace('cd $HOME/app && ls')).toBe('app');
    expect(fixPlace('npm install')).toBeNull();
  });

  it('a call aimed at a folder beside the cwd (controls: the cwd, above it, inside it, no cd, unknown shapes)', () => {
    const cwd = '/home/ken/developer-portal';
    expect(ranBeside(cwd, 'git -C /home/ken/docs status 2>&1')).toBe(true);
    expect(ranBeside(cwd, 'cd ../database && git add -A')).toBe(true);
    expect(ranBeside(cwd, 'cd /home/ken/developer-portal-old && ls')).toBe(true);
    expect(ranBeside(cwd, 'git -C /home/ken add docs/prd.json')).toBe(false);
    expect(ranBeside(cwd, 'cd /home/ken && git add -A')).toBe(false);
    expect(ranBeside(cwd, 'cd / && ls')).toBe(false);
    expect(ranBeside(cwd, 'cd src && npm test')).toBe(false);
    expect(ranBeside(cwd, 'git -C /home/ken/developer-portal/ status')).toBe(false);
    expect(ranBeside(cwd, 'git status')).toBe(false);
    expect(ranBeside(cwd, 'cd ~/docs && ls')).toBe(false);
    expect(ranBeside(null, 'cd /tmp && ls')).toBe(false);
    expect(ranBeside('C:\\Users\\a\\app', 'cd C:\\Users\\a\\docs && dir')).toBe(false);
  });

  it('property: a call into the cwd, any folder above it or any folder under it is never beside it', () => {
    const seg = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
    fc.assert(fc.property(fc.array(seg, { minLength: 1, maxLength: 5 }), fc.nat(5), fc.array(seg, { maxLength: 3 }), (segs, up, down) => {
      const cwd = `/${segs.join('/')}`;
      const above = `/${segs.slice(0, Math.max(0, segs.length - up)).join('/')}`;
      const below = [cwd, ...down].join('/');
      return !ranBeside(cwd, `cd ${above} && ls`) && !ranBeside(cwd, `git -C ${below} status`) && !ranBeside(cwd, `cd ${cwd} && ls`);
    }));
  });

  it('the session works there: its cwd, a path through the place, or a cd into it (controls: a longer name, prose)', () => {
    expect(placeInContext('api', '/home/u/api/src', '')).toBe(true);
    expect(placeInContext('api', '/home/u', '"cwd":"/home/u/api"')).toBe(true);
    expect(placeInContext('api', '/home/u', '"command":"cd api && npm test"')).toBe(true);
    expect(placeInContext('api', '/home/u', '"file_path":"C:\\\\u\\\\api\\\\x.ts"')).toBe(true);
    expect(placeInContext('api', '/home/u', '"cwd":"/home/u/api-gateway"')).toBe(false);
    expect(placeInContext('api', '/home/u', 'the api is down')).toBe(false);
    expect(placeInContext('api', null, '')).toBe(false);
  });

  it('a session in a folder beside the place works on its own project; a glob is no place (controls: the parent, a real path)', () => {
    const read = '"file_path":"/home/u/api/src/routes.ts"';
    expect(placeInContext('api', '/home/u/db', read)).toBe(false);
    expect(placeInContext('api', '/home/u', read)).toBe(true);
    expect(placeInContext('api', '/srv/db', read)).toBe(true);
    expect(placeInContext('api', '/home/u', '"glob":"**/api/**/*.ts"')).toBe(false);
    expect(placeInContext('api', '/home/u', '"glob":"src/api/**/*.ts"')).toBe(true);
  });

  it('of several places, the session works at the one it showed last; its cwd first; none when it shows none', () => {
    const recent = '"file_path":"/home/u/portal/src/a.ts" … "command":"cd /home/u/api && npm test"';
    expect(currentPlace(['portal', 'api'], '/home/u', recent)).toBe('api');
    expect(currentPlace(['api', 'portal'], '/home/u', recent.split(' … ').reverse().join(' … '))).toBe('portal');
    expect(currentPlace(['api', 'portal'], '/home/u/portal', recent)).toBe('portal');
    expect(currentPlace(['api', 'portal'], '/home/u', 'nothing here')).toBeNull();
    expect(currentPlace([], '/home/u/api', recent)).toBeNull();
  });

  it('the files a fix stages by name; none for a whole tree, a folder or a placeholder', () => {
    expect(fixStaged('git add webui/index.html webui/index.js; git commit -m "<message>"; git pull origin <branch> --no-rebase')).toEqual(['index.html', 'index.js']);
    expect(fixStaged('cd api && git add src/a.ts && git commit -m "<message>"')).toEqual(['a.ts']);
    expect(fixStaged('git add -A; git commit -m "<message>"; then git pull succeeded')).toBeNull();
    expect(fixStaged('git add .; then git push succeeded')).toBeNull();
    expect(fixStaged('git add src/; then git push succeeded')).toBeNull();
    expect(fixStaged('git add <path>; then git push succeeded')).toBeNull();
    expect(fixStaged('git pull --rebase; then git push succeeded')).toBeNull();
  });

  it('the files a fix only edited; none when it does anything else', () => {
    expect(fixEdits('Edit cival-dashboard/src/lib/trading/wallet-manager.ts')).toEqual(['wallet-manager.ts']);
    expect(fixEdits('Edit src/a.ts; Write src/b.ts; … (2 more); then npm run build succeeded')).toEqual(['a.ts', 'b.ts']);
    expect(fixEdits('Edit package.json; then npm install --legacy-peer-deps')).toBeNull();
    expect(fixEdits('mix format; then git commit succeeded')).toBeNull();
    expect(fixEdits('git push --set-upstream origin <branch>')).toBeNull();
    expect(editsNamed(['wallet-manager.ts'], "./src/lib/trading/Wallet-Manager.ts:423:23\nType error: Property 'utils'")).toBe(true);
    expect(editsNamed(['otel_trace_helpers.ex'], 'lib/spotter/services/waiting_summary.ex:110:10')).toBe(false);
  });

  it('properties: never throws; a place in the cwd or in a path of the transcript always counts; named nowhere never', () => {
    const seg = fc.stringMatching(/^[a-z][a-z0-9._-]{0,20}$/);
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string()), fc.string({ maxLength: 2000 }), (place, cwd, recent) => {
        expect(typeof placeInContext(place, cwd, recent)).toBe('boolean');
        expect(() => fixPlace(place + recent)).not.toThrow();
        expect(() => fixEdits(place + recent)).not.toThrow();
        const e = fixEdits(recent);
        if (e) expect(e.length).toBeGreaterThan(0);
      }),
    );
    fc.assert(
      fc.property(seg, seg, fc.string({ maxLength: 200 }), (place, parent, noise) => {
        expect(placeInContext(place, `/${parent}/${place}`, '')).toBe(true);
        expect(placeInContext(place, null, `${noise} "cwd":"/${parent}/${place}" ${noise}`)).toBe(true);
        const clean = noise.split(place).join('');
        expect(placeInContext(place, null, clean.replace(/[/\\]/g, ' ').replace(/\bcd\b/g, ''))).toBe(false);
      }),
    );
  });
});
